/** Where every tracked link points: the click redirect, and merchant conversion intake. */
import type Koa from 'koa';
import { storeClicks } from '@cw/stats';
import { BatchedCounter } from '@cw/ratelimit';
import { mountRouter, type NodeRoute, type RouteSpec, type OpenApiExamples } from '@cw/http';
import { apiDocument, createPlatformApp, gettingStarted, type ApiDescription } from '@cw/runtime';
import { attributionRoutes } from './routes/attributions.routes';
import { conversionRoutes } from './routes/conversions.routes';
import { inquiryRoutes } from './routes/inquiries.routes';
import { redirectRoute } from './routes/redirect.node-route';
import { redirectRouter } from './routes/redirect.routes';
import { ClickRecorder } from './services/click-recorder';
import { ClickRedirects } from './services/click-redirects';
import examples from './openapi.examples.json';
import type { TrackerDeps } from './deps';

export const PREFIX = '/api/v1/track';

export interface TrackerApp extends Koa {
  /** The click buffer: flush or close it before the process exits. */
  clicks: ClickRecorder;
  /** The per-address budget of cached redirects, counted here and sent to the store in batches: close it before the process exits. */
  addresses: BatchedCounter;
  /** The redirect of cached codes, mounted by the server factory in front of Koa (`serveApp`). */
  nodeRoutes: readonly NodeRoute[];
  /** Settles when the AS table of the `datacenter` flag is loaded (it loads beside the traffic from the start). */
  networksLoaded: Promise<void>;
}

/** How often the redirects' per-address counts go to the rate-limit store (docs/decisions/0050-tracker-counts-addresses-in-batches.md). */
export const ADDRESS_COUNT_FLUSH_MS = 100;

export const routes = (deps: TrackerDeps): RouteSpec[] => [...conversionRoutes(deps), ...attributionRoutes(deps), ...inquiryRoutes(deps)];

export function api(deps: TrackerDeps): ApiDescription {
  return {
    title: 'Tracking API',
    description: gettingStarted({
      intro:
        "For merchants: report each sale on the click that brought it (server to server), then approve or decline it. Tracked links themselves are `{tracking_url}/c/{code}`: they redirect to your landing page with the click id appended (`cw_click_id`, or your program's own parameter).",
      authentication: 'Send your merchant token (`mrc_…`, issued by the network) as `Authorization: Bearer mrc_…`.',
      firstRequest:
        'curl -s -X POST http://127.0.0.1:8080/api/v1/track/conversions/ -H "Authorization: Bearer $MRC" -H "Content-Type: application/json" \\\n  -d \'{"click_id": "clk_…", "order_id": "A-1001", "amount": "89.90", "currency": "EUR"}\'',
      more: [
        '**Report at once.** A click id carries, signed, what attribution needs: a sale converts the moment the redirect answered. The same order id again answers the existing conversion (200) and changes nothing.',
      ],
    }),
    prefix: PREFIX,
    examples: examples as OpenApiExamples,
    securitySchemes: { MerchantToken: { type: 'http', scheme: 'bearer', description: 'A merchant token (mrc_…), issued with the operator CLI.' } },
    routes: routes(deps),
  };
}

export const openApiDocument = (deps: TrackerDeps) => apiDocument(deps, api(deps));

export function createApp(deps: TrackerDeps): TrackerApp {
  // Redirects must work for every reader: over the address budget they are flagged, not refused.
  const app = createPlatformApp(deps, { name: 'tracker', api: api(deps), softIpLimit: (ctx) => ctx.path.startsWith('/c/') }) as TrackerApp;
  app.clicks = new ClickRecorder(
    async (batch) => (await storeClicks(deps, batch, (rows, txn) => deps.data.links.insertClickRows(rows, txn))).stored,
    deps.logger,
    deps.config.clickFlushIntervalMs,
    deps.config.clickBufferMax,
    deps.metrics.registry,
  );
  const redirects = new ClickRedirects(deps, app.clicks);
  mountRouter(app, redirectRouter(redirects));
  app.networksLoaded = redirects.networksLoaded;
  app.addresses = new BatchedCounter(deps.limiter, 'ip', deps.config.rateLimits.ip, {
    flushMs: ADDRESS_COUNT_FLUSH_MS,
    onStoreError: (err) =>
      deps.logger.error({ err: err.message, budget: 'ip' }, 'rate limit store failure: addresses counted in this process until it is back'),
  });
  app.nodeRoutes = [redirectRoute(deps, redirects, app.addresses)];
  return app;
}
