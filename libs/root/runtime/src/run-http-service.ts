import type Koa from 'koa';
import { loadConfig, requireMongoUri, ConfigError } from '@cw/config';
import { withProbes } from '@cw/health';
import type { RequestListener } from 'node:http';
import { endEventStreams, requestIdFor, withNodeRoutes, type NodeRoutedApp } from '@cw/http';
import { startTelemetry } from '@cw/telemetry';
import { closeServer } from './close-server';
import { createHttpServer } from './http-server';
import { IndexesMissingError, openServiceDeps, type ServiceDeps } from './service-deps';

export interface RunOptions {
  name: string;
  defaultPort: number;
  env: Record<string, string | undefined>;
  createApp: (deps: ServiceDeps) => Koa | Promise<Koa>;
  /** Extra work once requests in flight are done, before the database closes (flush buffers). */
  onShutdown?: (app: Koa) => Promise<void>;
  /**
   * The process's work is background work (the worker: its app serves health and metrics only),
   * so its reads carry no request time budget. Otherwise every read does (REQUEST_QUERY_TIMEOUT_MS).
   */
  background?: boolean;
}

/**
 * What a service's server runs: the app's node routes (the tracker's redirect) first, then the
 * probes (/metrics behind METRICS_TOKEN), then Koa.
 */
export function serviceListener(app: Koa, deps: Pick<ServiceDeps, 'checks' | 'config' | 'metrics'>, draining: () => boolean = () => false): RequestListener {
  return withNodeRoutes(
    (app as NodeRoutedApp).nodeRoutes,
    withProbes(app.callback(), {
      checks: deps.checks,
      registry: deps.metrics.registry,
      metricsToken: deps.config.metricsToken,
      draining,
      requestId: (req) => requestIdFor(req.headers['x-request-id'] as string | undefined),
    }),
  );
}

/** Loads config, connects, listens, and shuts down gracefully on SIGTERM/SIGINT. For main.ts. */
export async function runHttpService(opts: RunOptions): Promise<void> {
  let deps: Awaited<ReturnType<typeof openServiceDeps>>;
  // Traces only when the OTEL_* variables ask for them (no SDK loaded otherwise).
  const telemetry = await startTelemetry(opts.env, opts.name);
  try {
    const config = loadConfig(opts.env, { port: opts.defaultPort });
    deps = await openServiceDeps(config, requireMongoUri(config), opts.name, { reads: opts.background ? 'background' : 'requests' });
  } catch (e) {
    console.error(
      e instanceof ConfigError || e instanceof IndexesMissingError ? `${opts.name}: ${e.message}` : `${opts.name} failed to start: ${(e as Error).message}`,
    );
    process.exit(1);
  }
  const app = await opts.createApp(deps);
  let draining = false;
  const server = createHttpServer(serviceListener(app, deps, () => draining));
  server.listen(deps.config.port, deps.config.host, () => deps.logger.info({ port: deps.config.port }, `${opts.name} listening`));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // Readiness turns false first, so the balancer stops sending; requests keep being served meanwhile.
    draining = true;
    deps.logger.info({ drain_ms: deps.config.shutdownDrainMs }, `${opts.name} draining, then shutting down`);
    await new Promise((r) => setTimeout(r, deps.config.shutdownDrainMs));
    // Open event streams end with a comment saying so (clients reconnect elsewhere with Last-Event-ID).
    endEventStreams();
    await closeServer(server);
    await opts.onShutdown?.(app);
    await deps.close();
    await telemetry?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
