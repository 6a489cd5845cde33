import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { activeTraceId, currentTraceparent, inSpan, startTelemetry, traceRequests, tracingRequested } from './index';

describe('tracing off', () => {
  it('is asked for only by an OTLP endpoint or a traces exporter other than none, never when the SDK is disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });

  it('loads no SDK and leaves handlers as they are when unset', async () => {
    expect(await startTelemetry({}, 'svc')).toBeUndefined();
    const handler: RequestListener = () => undefined;
    expect(traceRequests(handler)).toBe(handler);
    expect(activeTraceId()).toBeUndefined();
    expect(currentTraceparent()).toBeUndefined();
    expect(await inSpan('x', undefined, {}, async () => 42)).toBe(42);
    const loaded = Object.keys((globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')] ?? {});
    expect(loaded).not.toContain('trace');
  });
});
