/** Where every tracked link points: the click redirect (and, with conversions, merchant intake). */
import type Koa from 'koa';
import { mountRouter } from '@cw/http';
import { createPlatformApp, type AppDeps } from '@cw/runtime';
import { redirectRouter } from './routes/redirect.routes';
import { ClickRecorder } from './services/click-recorder';

export interface TrackerApp extends Koa {
  /** The click buffer: flush or close it before the process exits. */
  clicks: ClickRecorder;
}

export function createApp(deps: AppDeps): TrackerApp {
  // Redirects must work for every reader: over the address budget they are flagged, not refused.
  const app = createPlatformApp(deps, { name: 'tracker', softIpLimit: (ctx) => ctx.path.startsWith('/c/') }) as TrackerApp;
  app.clicks = new ClickRecorder(deps.repos.clicks, deps.logger, deps.config.clickFlushIntervalMs);
  mountRouter(app, redirectRouter(deps, app.clicks));
  return app;
}
