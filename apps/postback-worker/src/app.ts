import type Koa from 'koa';
import { createPlatformApp, type AppDeps } from '@cw/runtime';

/** The worker has no public paths; this app serves its health and metrics only. */
export function createApp(deps: AppDeps): Koa {
  return createPlatformApp(deps, { name: 'postback-worker' });
}
