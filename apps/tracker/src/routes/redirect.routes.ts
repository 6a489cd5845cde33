/**
 * GET /c/{code}: 302 to the landing URL with the click id appended, the click recorded in the
 * background (buffered writes); unknown code 404. HEAD answers the same redirect without
 * recording a click (link previews). Never exposes a publisher key. Codes whose target is cached
 * are answered by the node route in front of Koa (redirect.node-route.ts); this route answers the
 * rest (first sight of a code, unknown codes, errors), with the same redirect (redirectAnswer).
 */
import Router from '@koa/router';
import { ApiError } from '@cw/errors';
import type { ClickRedirects } from '../services/click-redirects';
import { destination } from '@cw/links';
import { redirectAnswer } from '../services/redirect-answer';

export function redirectRouter(redirects: ClickRedirects): Router {
  const router = new Router();
  router.get('/c/:code', async (ctx) => {
    const target = await redirects.resolver.resolve(ctx.params.code ?? '');
    if (!target) throw new ApiError({ code: 'not_found', detail: 'No such tracked link.' });
    const clickId = redirects.follow(target, ctx.method, {
      userAgent: ctx.get('User-Agent'),
      referrer: ctx.get('Referer'),
      ip: ctx.ip,
      overIpLimit: ctx.state.overIpLimit === true,
    });
    const { headers, body } = redirectAnswer(destination(target, clickId), ctx.get('Accept') || undefined);
    ctx.status = 302;
    ctx.set(headers);
    ctx.body = body;
    ctx.type = headers['Content-Type']!;
  });
  return router;
}
