import type Koa from 'koa';
import { createPlatformApp, type StackDeps } from '@cw/runtime';

/** The worker has no public paths; this app serves its health and metrics only (no domain's data). */
export function createApp(deps: StackDeps): Koa {
  return createPlatformApp(deps, { name: 'postback-worker' });
}
