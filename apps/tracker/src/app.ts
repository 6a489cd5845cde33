import type Koa from 'koa';
import { createServiceApp } from '@cw/http';
import type { AppDeps } from '@cw/runtime';

/** Where every tracked link points: /c/{code} redirects (routes added with click tracking). */
export function createApp(deps: AppDeps): Koa {
  return createServiceApp({ name: 'tracker', logger: deps.logger, limiter: deps.limiter, ipLimit: deps.config.rateLimits.ip, trustProxy: deps.config.trustProxy, metrics: deps.metrics });
}
