/**
 * The click redirect as a node route (docs/decisions/0048-tracker-redirect-node-route.md): the server
 * factory mounts it for `/c/` in front of Koa. It answers GET and HEAD /c/{code} whose target is
 * cached; everything else (first sight of a code, unknown codes, other methods, errors) goes on to
 * Koa's route (redirect.routes.ts), which resolves and caches the target. Both answer through the
 * same pieces: the redirect itself (redirectHeaders), the click (ClickRedirects.follow), and @cw/http's
 * request id, client address, access line and the metrics the Koa stack uses. The per-address
 * budget is counted in this process and sent to the store in batches (`addresses`,
 * docs/decisions/0050-tracker-counts-addresses-in-batches.md): nothing is awaited.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { clientAddress, MAX_URL_LENGTH, requestIdFor, writeAccessLine, type NodeRoute } from '@cw/http';
import { describeRequestSpan } from '@cw/telemetry';
import { rateLimitHeaders, type BatchedCounter } from '@cw/ratelimit';

import type { RedirectTarget } from '@cw/links';
import type { ClickRedirects } from '../services/click-redirects';
import { deadEndPage, redirectHeaders } from '../services/redirect-answer';
import type { TrackerDeps } from '../deps';

const ROUTE = '/c/:code';

/** The code of `/c/{code}` (one trailing slash and a query allowed), else undefined. */
function codeOf(url: string): string | undefined {
  const q = url.indexOf('?');
  let path = q < 0 ? url.slice(3) : url.slice(3, q);
  if (path.endsWith('/')) path = path.slice(0, -1);
  return path && !path.includes('/') ? path : undefined;
}

export function redirectRoute(
  deps: Pick<TrackerDeps, 'config' | 'logger' | 'metrics'>,
  redirects: ClickRedirects,
  /** The per-address budget (`ip`), counted in batches. */
  addresses: BatchedCounter,
): NodeRoute {
  const hops = deps.config.trustProxyHops;

  /** False when the redirect cannot answer yet (a dead product link's first click from a market): Koa's route does. */
  function answer(req: IncomingMessage, res: ServerResponse, target: RedirectTarget): boolean {
    const started = performance.now();
    const requestId = requestIdFor(req.headers['x-request-id'] as string | undefined);
    const ip = clientAddress(req, hops);
    const userAgent = req.headers['user-agent'] ?? '';
    // A dead product link whose answer for this market is not found yet: Koa's route finds it (and counts the address).
    if (target.fallback && !redirects.ready(target, ip, userAgent)) return false;
    const counted = addresses.hit(ip || 'unknown');
    const location = redirects.follow(target, req.method!, { userAgent, referrer: req.headers.referer ?? '', ip, overIpLimit: !counted.allowed });
    // Not after `ready` said yes (nothing runs between them); for the types.
    if (location === undefined) return false;
    let status = 302;
    if (location === null) {
      // A dead product link with nowhere to go: the page that says so.
      const page = deadEndPage(target.fallback!.reason);
      status = page.status;
      res.writeHead(status, ['X-Request-Id', requestId, ...rateLimitHeaders(counted), ...page.headers]);
      res.end(req.method === 'HEAD' ? undefined : page.body);
    } else {
      // Headers as one flat list: an object spread together per request made V8 build a new hidden
      // class for it every time in the one-process platform (decision 0048's addendum; bench/README.md).
      res.writeHead(302, ['X-Request-Id', requestId, ...rateLimitHeaders(counted), ...redirectHeaders(location), 'Content-Length', '0']);
      res.end();
    }
    deps.metrics.observe('tracker', req.method!, ROUTE, status, (performance.now() - started) / 1000);
    // As every Koa route: the request's span named by its route, and its access line.
    describeRequestSpan(ROUTE, req.method!);
    writeAccessLine(deps.logger, { requestId, method: req.method!, route: ROUTE, status, started });
    return true;
  }

  return {
    prefix: '/c/',
    handle(req, res, next) {
      // Long targets go to Koa too (its 414).
      const code = (req.method === 'GET' || req.method === 'HEAD') && req.url!.length <= MAX_URL_LENGTH ? codeOf(req.url!) : undefined;
      const target = code === undefined ? undefined : redirects.resolver.cached(code);
      if (!target) return next(req, res);
      try {
        if (!answer(req, res, target)) return next(req, res);
      } catch (err) {
        deps.logger.error({ err: err instanceof Error ? err.message : String(err), path: '/c/{code}' }, 'redirect node route failed; answered by Koa');
        if (!res.headersSent) next(req, res);
      }
    },
  };
}
