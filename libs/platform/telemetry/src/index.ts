export { activeTraceId, currentTraceparent, describeRequestSpan, inSpan, traceRequests, tracingEnabled, setTracingEnabled } from './tracing';
export { startTelemetry, tracingRequested } from './sdk';
export type { Telemetry } from './sdk';
