/**
 * The click redirect's fast path: a plain node:http handler in front of Koa for GET and HEAD
 * /c/{code} whose target is cached, with the Koa route's behaviour (headers, per-address
 * counting, bot flags, buffered click, metrics, request id, access line). Everything else, and every code
 * not cached yet, goes to Koa, which resolves and caches it.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { MAX_URL_LENGTH, requestIdFor, writeAccessLine } from '@cw/http';
import { describeRequestSpan } from '@cw/telemetry';
import { countOnly, rateLimitHeaders } from '@cw/ratelimit';
import type { AppDeps } from '@cw/runtime';
import type { ClickRedirects } from '../services/click-redirects';
import { destination } from '../services/redirects';

const ROUTE = '/c/:code';

/** The code of `/c/{code}` (one trailing slash and a query allowed), else undefined. */
function codeOf(url: string): string | undefined {
  if (!url.startsWith('/c/')) return undefined;
  const q = url.indexOf('?');
  let path = q < 0 ? url.slice(3) : url.slice(3, q);
  if (path.endsWith('/')) path = path.slice(0, -1);
  return path && !path.includes('/') ? path : undefined;
}

/** Koa's ctx.ip: behind `hops` trusted proxies, the X-Forwarded-For entry that many from the right; else the peer's. */
function clientIp(req: IncomingMessage, hops: number): string {
  if (hops > 0) {
    const xff = req.headers['x-forwarded-for'];
    const entries = (Array.isArray(xff) ? xff.join(',') : xff)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (entries?.length) return entries[Math.max(0, entries.length - hops)]!;
  }
  return req.socket.remoteAddress ?? '';
}

/** Koa's ctx.accepts('html'): any Accept header naming text/html, text/*, or a wildcard, or none at all. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept === undefined || accept === '' || /text\/html|text\/\*|\*\/\*/.test(accept);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

export function fastRedirects(
  deps: Pick<AppDeps, 'config' | 'limiter' | 'logger' | 'metrics'>,
  redirects: ClickRedirects,
  koa: RequestListener,
): RequestListener {
  const limit = deps.config.rateLimits.ip;
  const hops = deps.config.trustProxyHops;

  async function answer(req: IncomingMessage, res: ServerResponse, code: string): Promise<void> {
    const started = performance.now();
    const target = redirects.resolver.cached(code)!;
    const requestId = requestIdFor(req.headers['x-request-id'] as string | undefined);
    const ip = clientIp(req, hops);
    const counted = await countOnly(deps.limiter, 'ip', ip || 'unknown', limit);
    if (counted.failed) deps.logger.error({ err: counted.failed.message, budget: 'ip', request_id: requestId }, 'rate limit store failure');
    const clickId = redirects.follow(target, req.method!, {
      userAgent: req.headers['user-agent'] ?? '',
      referrer: req.headers.referer ?? '',
      ip,
      overIpLimit: !counted.allowed && !counted.failed,
    });
    const location = destination(target, clickId);
    const html = acceptsHtml(req.headers.accept);
    const body = `Redirecting to ${html ? escapeHtml(location) : location}.`;
    res.writeHead(302, {
      'X-Request-Id': requestId,
      ...rateLimitHeaders(counted),
      'Cache-Control': 'no-store',
      Location: location,
      'Content-Type': html ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    deps.metrics.observe('tracker', req.method!, ROUTE, 302, (performance.now() - started) / 1000);
    // As every Koa route: the request's span named by its route, and its access line.
    describeRequestSpan(ROUTE, req.method!);
    writeAccessLine(deps.logger, { requestId, method: req.method!, route: ROUTE, status: 302, started });
  }

  return (req, res) => {
    // Long targets go to Koa too (its 414).
    const code = (req.method === 'GET' || req.method === 'HEAD') && req.url && req.url.length <= MAX_URL_LENGTH ? codeOf(req.url) : undefined;
    if (!code || !redirects.resolver.cached(code)) return koa(req, res);
    answer(req, res, code).catch((err: unknown) => {
      deps.logger.error({ err: err instanceof Error ? err.message : String(err), path: '/c/{code}' }, 'redirect fast path failed; answered by Koa');
      if (!res.headersSent) koa(req, res);
    });
  };
}
