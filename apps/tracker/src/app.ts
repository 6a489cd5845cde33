/**
 * Where every tracked link points. GET /c/{code}: 302 to the landing URL with the click id
 * appended, the click recorded in the background (buffered writes); unknown code 404. HEAD answers
 * the same redirect without recording a click (link previews). Never exposes a publisher key.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type Koa from 'koa';
import Router from '@koa/router';
import { ApiError } from '@cw/errors';
import { createServiceApp, mountRouter } from '@cw/http';
import type { AppDeps } from '@cw/runtime';
import { ClickRateCounter, userAgentReason } from './bot-detection';
import { ClickRecorder } from './click-recorder';
import { destination, RedirectResolver } from './redirects';

export interface TrackerApp extends Koa {
  /** The click buffer: flush or close it before the process exits. */
  clicks: ClickRecorder;
}

const clip = (s: string | undefined, n: number) => (s ?? '').slice(0, n);

/** Click ids from a pooled random buffer (one getrandom call per 1024 clicks). */
const POOL_IDS = 1024;
let pool = Buffer.alloc(0);
let poolAt = 0;
function newClickId(): string {
  if (poolAt >= pool.length) {
    pool = randomBytes(12 * POOL_IDS);
    poolAt = 0;
  }
  const id = pool.subarray(poolAt, poolAt + 12).toString('base64url');
  poolAt += 12;
  return `clk_${id}`;
}

export function createApp(deps: AppDeps): TrackerApp {
  const app = createServiceApp({
    name: 'tracker',
    logger: deps.logger,
    limiter: deps.limiter,
    ipLimit: deps.config.rateLimits.ip,
    trustProxy: deps.config.trustProxy,
    metrics: deps.metrics,
    softIpLimit: (ctx) => ctx.path.startsWith('/c/'),
  }) as TrackerApp;
  const recorder = new ClickRecorder(deps.models, deps.logger, deps.config.clickFlushIntervalMs);
  const resolver = new RedirectResolver(deps.models);
  const rates = new ClickRateCounter();
  const ipKey = deps.config.secretKey;
  app.clicks = recorder;

  const router = new Router();
  router.get('/c/:code', async (ctx) => {
    const target = await resolver.resolve(ctx.params.code);
    if (!target) throw new ApiError({ code: 'not_found', detail: 'No such tracked link.' });
    const clickId = newClickId();
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(destination(target, clickId));
    ctx.status = 302;
    if (ctx.method === 'HEAD') return;
    const ua = clip(ctx.get('User-Agent'), 512);
    const ipHash = createHmac('sha256', ipKey).update(`ip:${ctx.ip}`).digest('hex').slice(0, 32);
    const overRate = rates.hit(ipHash, target.linkId) || ctx.state.overIpLimit === true;
    const reason = userAgentReason(ua) ?? (overRate ? 'rate' : undefined);
    recorder.record({
      _id: clickId,
      link_id: target.linkId,
      publisher_id: target.publisherId,
      program_id: target.programId,
      campaign_id: target.campaignId,
      subid: target.subid,
      created_at: new Date(),
      user_agent: ua,
      ip_hash: ipHash,
      referrer: clip(ctx.get('Referer'), 1024),
      is_bot: reason !== undefined,
      ...(reason ? { bot_reason: reason } : {}),
    });
  });
  mountRouter(app, router);
  return app;
}
