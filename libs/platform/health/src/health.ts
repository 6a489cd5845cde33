/**
 * Probes, answered in front of every app (before its rate limits, request logging and routes), so
 * a kubelet, a load balancer or Prometheus is never refused by a budget meant for clients:
 *
 * - `GET /healthz`: liveness. 200 while the process serves; no dependency is asked, so a database
 *   blip never has every replica restarted.
 * - `GET /readyz`: readiness. 200 when every check (MongoDB ping, Redis ping, ...) passes within
 *   its timeout, else 503 in the error shape with each check's state; 503 from the moment the
 *   process starts draining (SIGTERM), so the balancer stops sending before the server closes.
 * - `GET /metrics`: the Prometheus exposition of the process's registry, only to a scraper that
 *   sends `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time; anything else 401);
 *   without a token configured, /metrics is not served here at all (the app's 404).
 *
 * Every answer carries `X-Content-Type-Options: nosniff`, as the apps' answers do.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

export interface ProbeOptions {
  checks: ReadinessCheck[];
  /** The process's metrics, served at /metrics (absent: no /metrics here). */
  registry?: Registry;
  /** The bearer token /metrics asks for (METRICS_TOKEN); absent: no /metrics here (the app answers 404). */
  metricsToken?: string;
  /** True once the process drains (readiness turns 503). */
  draining?: () => boolean;
  /** The request id of an answer (the platform's X-Request-Id). */
  requestId: (req: IncomingMessage) => string;
  timeoutMs?: number;
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

const PROBES = new Set(['/healthz', '/healthz/', '/readyz', '/readyz/', '/metrics', '/metrics/']);

function send(res: ServerResponse, status: number, id: string, type: string, body: string, extra?: Record<string, string>): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': id,
    'Content-Length': Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request carries `Authorization: Bearer <token>`: digests compared, so neither length nor content shows in the time taken. */
function bearerMatches(req: IncomingMessage, expected: Buffer): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  return timingSafeEqual(digest(m?.[1] ?? ''), expected) && m !== null;
}

/** The probes in front of `next` (the app): GET /healthz, /readyz and /metrics; everything else passes through. */
/** What answers every other request: Koa's callback returns a promise that never rejects (Koa answers its own errors). */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export function withProbes(next: HttpHandler, opts: ProbeOptions): RequestListener {
  const json = 'application/json; charset=utf-8';
  const token = opts.metricsToken ? digest(opts.metricsToken) : undefined;
  return (req, res) => {
    const path = req.url?.split('?')[0] ?? '';
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !PROBES.has(path) || (path.startsWith('/metrics') && (!opts.registry || !token))) {
      void next(req, res);
      return;
    }
    const id = opts.requestId(req);
    if (path.startsWith('/healthz')) return send(res, 200, id, json, JSON.stringify({ status: 'ok' }));
    if (path.startsWith('/metrics')) {
      if (!bearerMatches(req, token!))
        return send(
          res,
          401,
          id,
          json,
          JSON.stringify({ detail: "Metrics need the scraper's token: Authorization: Bearer <METRICS_TOKEN>.", code: 'not_authenticated', request_id: id }),
          { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        );
      opts.registry!.metrics().then(
        (text) => send(res, 200, id, opts.registry!.contentType, text),
        () => send(res, 503, id, json, JSON.stringify({ detail: 'Metrics are unavailable.', code: 'service_unavailable', request_id: id })),
      );
      return;
    }
    if (opts.draining?.()) {
      return send(
        res,
        503,
        id,
        json,
        JSON.stringify({ detail: 'The process is shutting down.', code: 'service_unavailable', request_id: id, checks: { draining: 'yes' } }),
      );
    }
    runChecks(opts.checks, opts.timeoutMs ?? 2000).then(
      (results) => {
        const ready = Object.values(results).every((r) => r === 'ok');
        send(
          res,
          ready ? 200 : 503,
          id,
          json,
          JSON.stringify(
            ready ? { status: 'ok', checks: results } : { detail: 'A dependency is not ready.', code: 'service_unavailable', request_id: id, checks: results },
          ),
        );
      },
      // Each check's failure is caught where it runs; anything else still gets an answer.
      () => send(res, 503, id, json, JSON.stringify({ detail: 'Readiness could not be checked.', code: 'service_unavailable', request_id: id })),
    );
  };
}
