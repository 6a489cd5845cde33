import type Koa from 'koa';
import { createServiceApp } from '@cw/http';
import type { AppDeps } from '@cw/runtime';

/** The worker has no public paths; this app serves its health and metrics only. */
export function createApp(deps: AppDeps): Koa {
  return createServiceApp({ name: 'postback-worker', logger: deps.logger, limiter: deps.limiter, ipLimit: deps.config.rateLimits.ip, metrics: deps.metrics });
}
