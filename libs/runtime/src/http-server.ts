/**
 * The HTTP server every service listens with: time limits on slow clients, bounded URLs and
 * headers, and the transport-level refusals (malformed requests, smuggling shapes, headers over
 * the limit, slow headers) answered in the one error shape instead of Node's bare status lines.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, errorBody, type ErrorCode } from '@cw/errors';
import { newRequestId } from '@cw/http';

export interface ServerLimits {
  /** Time to receive a request's headers (slowloris). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this (above a load balancer's 60 s). */
  keepAliveTimeoutMs: number;
  /** Request line and headers together (Node: 431 beyond). */
  maxHeaderBytes: number;
  /** The request target alone (414 beyond). */
  maxUrlLength: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxHeaderBytes: 16 * 1024,
  maxUrlLength: 8 * 1024,
};

interface Refusal {
  status: number;
  body: string;
  requestId: string;
}

function refusal(code: ErrorCode, detail: string): Refusal {
  const err = new ApiError({ code, detail });
  const requestId = newRequestId();
  return { status: err.status, body: JSON.stringify(errorBody(err, requestId)), requestId };
}

/** What Node's parser reports, as the one error shape. */
function clientErrorAnswer(err: NodeJS.ErrnoException): Refusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return refusal('headers_too_large', 'The request line and headers are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return refusal('request_timeout', 'The request was not received in time.');
    default:
      return refusal('malformed_request', 'The request is not valid HTTP/1.1.');
  }
}

export function createHttpServer(handler: http.RequestListener, limits: Partial<ServerLimits> = {}): http.Server {
  const l = { ...DEFAULT_SERVER_LIMITS, ...limits };
  const server = http.createServer(
    {
      maxHeaderSize: l.maxHeaderBytes,
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, l.headersTimeoutMs),
    },
    (req, res) => {
      if ((req.url?.length ?? 0) > l.maxUrlLength) {
        const { status, body, requestId } = refusal('uri_too_long', `The request target is longer than ${l.maxUrlLength} characters.`);
        res.writeHead(status, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
          'X-Request-Id': requestId,
          Connection: 'close',
        });
        res.end(body);
        return;
      }
      handler(req, res);
    },
  );
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body, requestId } = clientErrorAnswer(err);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
