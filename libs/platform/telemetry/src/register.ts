/**
 * `node --import @cw/telemetry/register main.js`: starts tracing (when the OTEL_* variables ask for
 * it) before the app loads its drivers, so MongoDB, Redis and HTTP client calls get spans too.
 */
import { startTelemetry } from './sdk';

// The one other place that reads the environment: the OTEL_* variables, before main.ts runs.
await startTelemetry(process.env, process.env.OTEL_SERVICE_NAME ?? 'cw');
