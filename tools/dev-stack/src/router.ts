import type { IncomingMessage, ServerResponse } from 'node:http';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Route {
  prefixes: string[];
  handler: Handler;
}

/** Path-prefix routing, as the production reverse proxy does (docker/nginx.conf). */
export function routeByPrefix(routes: Route[], fallback: Handler): Handler {
  const table = routes.flatMap((r) => r.prefixes.map((p) => [p, r.handler] as const)).sort((a, b) => b[0].length - a[0].length);
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    for (const [prefix, handler] of table) {
      if (path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) return handler(req, res);
    }
    fallback(req, res);
  };
}
