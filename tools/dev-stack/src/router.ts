import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request handler; a promise it returns (Koa's callback) never rejects. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface Route {
  prefixes: string[];
  /** Paths routed only when matched exactly (`/`). */
  exact?: string[];
  handler: Handler;
}

/** Path-prefix routing, as the production reverse proxy does (docker/nginx.conf). */
export function routeByPrefix(routes: Route[], fallback: Handler): Handler {
  const table = routes.flatMap((r) => r.prefixes.map((p) => [p, r.handler] as const)).sort((a, b) => b[0].length - a[0].length);
  const exact = new Map(routes.flatMap((r) => (r.exact ?? []).map((p) => [p, r.handler] as const)));
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const hit = exact.get(path);
    if (hit) return hit(req, res);
    for (const [prefix, handler] of table) {
      if (path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) return handler(req, res);
    }
    return fallback(req, res);
  };
}
