/**
 * One access log line per request, and the request's own logger.
 *
 * The line: method, the matched route template (never the raw path or query: they may carry a key,
 * a token or a click's parameters), status, duration in ms, request id, the account when a
 * credential named one, the trace id when tracing is on. Headers are never logged.
 *
 * `ctx.state.log` is a child logger carrying the request id, the account (once known) and the
 * trace id, made on first use only (most requests log nothing but the access line).
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { activeTraceId, describeRequestSpan } from '@cw/telemetry';

/** The account a credential named (the auth middleware's principal), if any. */
export function accountOf(ctx: Context): string | undefined {
  const principal = ctx.state.principal as { publisher?: { _id?: unknown } } | undefined;
  const id = principal?.publisher?._id;
  return id === undefined || id === null ? undefined : String(id);
}

/** The route template Koa's router matched, or `unmatched`. */
export function routeOf(ctx: Context): string {
  const route = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  return route === undefined ? 'unmatched' : String(route);
}

function bindings(ctx: Context): Record<string, string> {
  const b: Record<string, string> = { request_id: ctx.state.requestId as string };
  const account = accountOf(ctx);
  if (account) b.account_id = account;
  const trace = activeTraceId();
  if (trace) b.trace_id = trace;
  return b;
}

/** Mount right after the request id: every response below it (errors included) is logged once. */
export function accessLog(logger: Logger) {
  return async function logAccess(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    let child: Logger | undefined;
    let childAccount: string | undefined;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: false,
      get: () => {
        // Made again once the account is known, so lines after authentication name it.
        const account = accountOf(ctx);
        if (!child || account !== childAccount) {
          child = logger.child(bindings(ctx));
          childAccount = account;
        }
        return child;
      },
      set: (l: Logger) => {
        child = l;
      },
    });
    try {
      await next();
    } finally {
      const route = routeOf(ctx);
      const account = accountOf(ctx);
      describeRequestSpan(route, ctx.method, account);
      writeAccessLine(logger, { requestId: ctx.state.requestId as string, method: ctx.method, route, status: ctx.status, started, account });
    }
  };
}

/**
 * The logger access lines are written through: the app's, without its redaction. An access line
 * holds only the fields above, none a secret, and the redaction's wildcard paths (`*.key`, ...)
 * ran over every value of every line, most of what an access line cost on a saturated redirect
 * (bench/README.md, the redirect).
 */
const accessLoggers = new WeakMap<Logger, Logger>();
function accessLogger(logger: Logger): Logger {
  let access = accessLoggers.get(logger);
  if (!access) accessLoggers.set(logger, (access = logger.child({}, { redact: [] })));
  return access;
}

/** The access line itself, for Koa apps (above) and a plain node:http handler in front of one (the tracker's redirect). */
export function writeAccessLine(
  logger: Logger,
  r: { requestId: string; method: string; route: string; status: number; started: number; account?: string },
): void {
  // Below the logger's level (a busy redirect logging at warn), the line is not even built.
  if (!logger.isLevelEnabled('info')) return;
  const line: Record<string, unknown> = {
    request_id: r.requestId,
    method: r.method,
    route: r.route,
    status: r.status,
    duration_ms: Math.round((performance.now() - r.started) * 100) / 100,
  };
  if (r.account) line.account_id = r.account;
  const trace = activeTraceId();
  if (trace) line.trace_id = trace;
  accessLogger(logger).info(line, 'request');
}
