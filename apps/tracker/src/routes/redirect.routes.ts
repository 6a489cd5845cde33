/**
 * GET /c/{code}: 302 to the landing URL with the click id appended, the click recorded in the
 * background (buffered writes); unknown code 404. HEAD answers the same redirect without
 * recording a click (link previews). Never exposes a publisher key.
 */
import Router from '@koa/router';
import { ApiError } from '@cw/errors';
import { clickRecord, ClickIds, ClickRateCounter } from '@cw/links';
import type { AppDeps } from '@cw/runtime';
import type { ClickRecorder } from '../services/click-recorder';
import { destination, RedirectResolver } from '../services/redirects';

export function redirectRouter(deps: AppDeps, recorder: ClickRecorder): Router {
  const resolver = new RedirectResolver(deps.repos);
  const rates = new ClickRateCounter();
  const ids = new ClickIds();
  const router = new Router();
  router.get('/c/:code', async (ctx) => {
    const target = await resolver.resolve(ctx.params.code);
    if (!target) throw new ApiError({ code: 'not_found', detail: 'No such tracked link.' });
    const clickId = ids.next();
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(destination(target, clickId));
    ctx.status = 302;
    if (ctx.method === 'HEAD') return;
    const overIpLimit = ctx.state.overIpLimit === true;
    recorder.record(
      clickRecord(target, { userAgent: ctx.get('User-Agent'), referrer: ctx.get('Referer'), ip: ctx.ip, overRate: (ipHash) => rates.hit(ipHash, target.linkId) || overIpLimit }, clickId, deps.config.secretKey),
    );
  });
  return router;
}
