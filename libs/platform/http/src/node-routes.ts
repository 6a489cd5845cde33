/**
 * Paths a service answers with a plain node:http handler in front of Koa: its hottest path (the
 * tracker's redirect, docs/decisions/0048-tracker-redirect-node-route.md). The server factory
 * mounts them first, before probes and routing; a handler passes what it does not answer to
 * `next`, the service's Koa app (or whatever the server would have run). A node route shares the
 * request id, client address, access line and metrics helpers with the Koa stack, never a copy.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export interface NodeRoute {
  /** The path prefix this handler sees (e.g. `/c/`); every other request goes on. */
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, next: RequestListener): void;
}

/** A Koa app that may carry node routes (`app.nodeRoutes`). */
export interface NodeRoutedApp {
  callback(): RequestListener;
  nodeRoutes?: readonly NodeRoute[];
}

/** `routes` first (by prefix), `fallback` for everything else and for what a route passes on. */
export function withNodeRoutes(routes: readonly NodeRoute[] | undefined, fallback: RequestListener): RequestListener {
  if (!routes?.length) return fallback;
  return (req, res) => {
    const url = req.url ?? '';
    for (const r of routes) if (url.startsWith(r.prefix)) return r.handle(req, res, fallback);
    return fallback(req, res);
  };
}

/** An app as one listener: its node routes, then Koa. What tests and servers serve an app with. */
export function serveApp(app: NodeRoutedApp): RequestListener {
  return withNodeRoutes(app.nodeRoutes, app.callback());
}
