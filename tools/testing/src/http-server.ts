import http from 'node:http';

/**
 * An HTTP server for a Koa callback (or any handler returning a promise). Koa's callback answers
 * its own errors, so its promise never rejects; the server is not left to guess that.
 */
export function handlerServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>): http.Server {
  return http.createServer((req, res) => void handler(req, res));
}
