import type { Context, Next } from 'koa';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

async function runChecks(checks: ReadinessCheck[], timeoutMs: number): Promise<Record<string, string>> {
  const results: Record<string, string> = {};
  await Promise.all(
    checks.map(async (c) => {
      try {
        await Promise.race([c.check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
        results[c.name] = 'ok';
      } catch (e) {
        results[c.name] = `failing: ${e instanceof Error ? e.message : String(e)}`;
      }
    }),
  );
  return results;
}

/**
 * GET /healthz: 200 once the process is ready (every check passes), else 503.
 * GET /readyz: the same answer with each dependency's state.
 */
export function healthMiddleware(opts: { checks: ReadinessCheck[]; timeoutMs?: number }) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' || !['/healthz', '/readyz', '/healthz/', '/readyz/'].includes(ctx.path)) return next();
    const results = await runChecks(opts.checks, opts.timeoutMs ?? 2000);
    const ready = Object.values(results).every((r) => r === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = ready
      ? { status: 'ok', checks: results }
      : { detail: 'A dependency is not ready.', code: 'service_unavailable', request_id: ctx.state.requestId ?? 'unknown', checks: results };
  };
}
