/**
 * Starts the OpenTelemetry Node SDK when the standard variables ask for traces: OTEL_EXPORTER_OTLP_ENDPOINT
 * (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or an OTEL_TRACES_EXPORTER other than `none`; never with
 * OTEL_SDK_DISABLED=true. The SDK and the instrumentations are imported only then: unset costs nothing.
 * The SDK reads the other OTEL_* variables itself (protocol http/protobuf, http/json or grpc, headers,
 * sampler, resource attributes, batch delays). Metrics stay Prometheus and logs stay pino unless
 * OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER are set.
 */
import { setTracingEnabled, state, tracingEnabled } from './tracing';

export interface Telemetry {
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  /** Flushes, then stops recording. */
  shutdown(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** Whether these variables ask for traces. */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporters) return exporters.split(',').some((e) => e.trim() !== 'none');
  return !!(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts tracing for this process once (later calls answer the same handle); undefined when the
 * variables do not ask for it. Call it before the app's modules load their drivers when driver spans
 * matter (`node --import @cw/telemetry/register`); started later, the process still has its request,
 * delivery and HTTP client spans.
 */
export async function startTelemetry(env: Env, serviceName: string): Promise<Telemetry | undefined> {
  if (state.running || !tracingRequested(env)) return state.running as Telemetry | undefined;
  const [{ NodeSDK }, { HttpInstrumentation }, { KoaInstrumentation }, { MongoDBInstrumentation }, { IORedisInstrumentation }, { UndiciInstrumentation }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-koa'),
      import('@opentelemetry/instrumentation-mongodb'),
      import('@opentelemetry/instrumentation-ioredis'),
      import('@opentelemetry/instrumentation-undici'),
    ]);
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    instrumentations: [
      // Server spans are ours (traceRequests): one per request, named by route, whatever loaded first.
      new HttpInstrumentation({ ignoreIncomingRequestHook: () => true }),
      new KoaInstrumentation({ ignoreLayersType: ['middleware' as never] }),
      new MongoDBInstrumentation(),
      new IORedisInstrumentation(),
      new UndiciInstrumentation(),
    ],
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  setTracingEnabled(true);
  const provider = (sdk as unknown as { _tracerProvider?: { forceFlush(): Promise<void> } })._tracerProvider;
  const handle: Telemetry = {
    flush: async () => provider?.forceFlush(),
    shutdown: async () => {
      if (state.running !== handle) return;
      state.running = undefined;
      setTracingEnabled(false);
      await sdk.shutdown();
    },
  };
  state.running = handle;
  return handle;
}

export { tracingEnabled };
