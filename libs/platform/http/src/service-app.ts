/**
 * The standard middleware stack every service starts from: security headers (nosniff on every
 * answer, the strict HTML headers on a page without its own policy), request id, the one error mapper,
 * metrics, the per-address rate limit (before any credential is read), the request target's
 * length (414), trailing-slash tolerance and JSON bodies. Apps add their routers after it.
 */
import Koa from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '@cw/errors';
import { countRequest, enforceRateLimit, type RateLimiter } from '@cw/ratelimit';
import type { HttpMetrics } from '@cw/metrics';
import { errorHandler, type ErrorClassifier, type ErrorRenderer } from './error.middleware';
import { accessLog } from './access-log.middleware';
import { clientAddress } from './client-address';
import { requestId } from './request-id.middleware';
import { securityHeaders } from './security-headers';
import { trailingSlash } from './trailing-slash.middleware';

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  limiter: RateLimiter;
  /** Requests per minute per client address. */
  ipLimit: number;
  /**
   * Requests for which the address limit only counts: over it, `ctx.state.overIpLimit` is set
   * instead of a 429, and a limiter store failure lets the request through (the tracker's
   * redirects, which must work for every reader; it flags such clicks instead).
   */
  softIpLimit?: (ctx: Koa.Context) => boolean;
  /** Proxies in front (TRUST_PROXY_HOPS): the client is the X-Forwarded-For entry that many from the right. */
  trustProxyHops?: number;
  metrics?: HttpMetrics;
  /** Infrastructure failures mapped to error codes (the database's, from @cw/db). */
  classifiers?: readonly ErrorClassifier[];
  /** Another error envelope (HasOffers' for /Apiv3/json, MCP's); default: the one JSON error body. */
  renderError?: ErrorRenderer;
}

/** The longest request target served (a longer one is 414, counted against the address budget). */
export const MAX_URL_LENGTH = 8 * 1024;

async function uriLength(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  if (ctx.url.length > MAX_URL_LENGTH) throw new ApiError({ code: 'uri_too_long', detail: `The request target is longer than ${MAX_URL_LENGTH} characters.` });
  await next();
}

export function createServiceApp(opts: ServiceAppOptions): Koa {
  // ctx.ip is clientAddress's (shared with node routes); `proxy` still governs ctx.protocol and ctx.host.
  const hops = opts.trustProxyHops ?? 0;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true;
  app.use(securityHeaders);
  app.use((ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req, hops);
    return next();
  });
  app.use(requestId);
  // One access line per request; ctx.state.log: the request's logger (request id, account, trace id).
  app.use(accessLog(opts.logger));
  if (opts.metrics) app.use(opts.metrics.middleware(opts.name));
  app.use(errorHandler(opts.logger, { classifiers: opts.classifiers, render: opts.renderError }));
  app.use(async (ctx, next) => {
    if (!opts.softIpLimit?.(ctx)) {
      await enforceRateLimit(ctx, opts.limiter, 'ip', ctx.ip || 'unknown', opts.ipLimit);
      return next();
    }
    const outcome = await countRequest(ctx, opts.limiter, 'ip', ctx.ip || 'unknown', opts.ipLimit);
    if (outcome !== 'allowed' && outcome !== 'unavailable') ctx.state.overIpLimit = true;
    return next();
  });
  app.use(uriLength);
  app.use(trailingSlash);
  return app;
}
