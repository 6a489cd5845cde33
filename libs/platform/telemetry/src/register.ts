/**
 * `node --import <this module> main.js`: starts tracing (when the OTEL_* variables ask for it) before
 * the app loads its drivers, so MongoDB, Redis and HTTP client calls get spans too. Apps are ES
 * modules, so their imports of the drivers are seen only through Node's module hooks: the
 * instrumentations' loader (import-in-the-middle) is registered first. Unset variables: nothing is
 * registered or loaded.
 */
import { register } from 'node:module';
import { startTelemetry, tracingRequested } from './sdk';

// The one other place that reads the environment: the OTEL_* variables, before main.ts runs.
if (tracingRequested(process.env)) {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  await startTelemetry(process.env, process.env.OTEL_SERVICE_NAME ?? 'cw');
}
