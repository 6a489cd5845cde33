/**
 * Traces through the OpenTelemetry API only (no SDK here): while no SDK was started
 * (startTelemetry), every function below returns at once, without touching the API.
 */
import type { RequestListener } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

/**
 * This process's tracing state, kept on globalThis: a service's bundle and the `register.js` it is
 * started with (`node --import ./register.js main.js`) each carry their own copy of this module.
 */
export interface TelemetryState {
  enabled: boolean;
  /** The started SDK's handle (./sdk.ts). */
  running?: unknown;
}
export const state: TelemetryState = ((globalThis as { [k: symbol]: TelemetryState })[Symbol.for('cw.telemetry')] ??= { enabled: false });

/** Whether spans are recorded in this process (an SDK was started). */
export const tracingEnabled = (): boolean => state.enabled;

/** For startTelemetry (and tests that stop it). */
export function setTracingEnabled(on: boolean): void {
  state.enabled = on;
}

const ignore = () => undefined;
const tracer = () => trace.getTracer('cw');

/** The active span's trace id, for log lines; undefined when tracing is off or no span is active. */
export function activeTraceId(): string | undefined {
  if (!state.enabled) return undefined;
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/** The W3C traceparent of the active span, to keep with work done later (a sale event, then its postback). */
export function currentTraceparent(): string | undefined {
  if (!state.enabled || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Names the request's server span by its route template (never the raw path) and records the account. */
export function describeRequestSpan(route: string, method: string, accountId?: string): void {
  if (!state.enabled) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
  if (accountId) span.setAttribute('cw.account_id', accountId);
}

/**
 * One server span per request, continuing the caller's traceparent, active while the handler runs
 * (Koa, the tracker's fast redirect path). Off: the handler itself. The span carries the path
 * without its query (queries may carry credentials) and the status.
 */
export function traceRequests(handler: RequestListener): RequestListener {
  if (!state.enabled) return handler;
  return (req, res) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const span = tracer().startSpan(
      req.method ?? 'HTTP',
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': path } },
      parent,
    );
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), () => handler(req, res));
  };
}

/**
 * Runs `fn` in a span that is the child of `traceparent` (work handed on from a request: a postback
 * delivery), or of the active span when there is none. Off: `fn` alone.
 */
export async function inSpan<T>(
  name: string,
  traceparent: string | undefined,
  attributes: Attributes,
  fn: (annotate: (key: string, value: string | number | boolean) => void) => Promise<T>,
): Promise<T> {
  if (!state.enabled) return fn(ignore);
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      return await fn((key, value) => span.setAttribute(key, value));
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw e;
    } finally {
      span.end();
    }
  });
}
