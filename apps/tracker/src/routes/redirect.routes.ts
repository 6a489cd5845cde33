/**
 * GET /c/{code}: 302 to the landing URL with the click id appended, the click recorded in the
 * background (buffered writes); unknown code 404. HEAD answers the same redirect without
 * recording a click (link previews). Never exposes a publisher key. Codes whose target is cached
 * are answered by the node route in front of Koa (redirect.node-route.ts); this route answers the
 * rest (first sight of a code, unknown codes, errors), with the same redirect (redirectHeaders).
 */
import Router from '@koa/router';
import { ApiError } from '@cw/errors';
import type { ClickRedirects } from '../services/click-redirects';
import { deadEndPage, redirectHeaders } from '../services/redirect-answer';

export function redirectRouter(redirects: ClickRedirects): Router {
  const router = new Router();
  router.get('/c/:code', async (ctx) => {
    const target = await redirects.resolver.resolve(ctx.params.code ?? '');
    if (!target) throw new ApiError({ code: 'not_found', detail: 'No such tracked link.' });
    const reader = { userAgent: ctx.get('User-Agent'), referrer: ctx.get('Referer'), ip: ctx.ip, overIpLimit: ctx.state.overIpLimit === true };
    let location = redirects.follow(target, ctx.method, reader);
    if (location === undefined) {
      // A dead product link's first click from a market: the GTIN fallback's answer is found first.
      await redirects.prepare(target, reader);
      location = redirects.follow(target, ctx.method, reader);
    }
    if (location === undefined) throw new Error('the GTIN fallback found no answer');
    if (location === null) {
      const page = deadEndPage(target.fallback!.reason);
      ctx.status = page.status;
      for (let i = 0; i < page.headers.length; i += 2) if (page.headers[i] !== 'Content-Length') ctx.set(page.headers[i]!, page.headers[i + 1]!);
      ctx.body = ctx.method === 'HEAD' ? '' : page.body;
      return;
    }
    const headers = redirectHeaders(location);
    ctx.status = 302;
    for (let i = 0; i < headers.length; i += 2) ctx.set(headers[i]!, headers[i + 1]!);
    // No body (Content-Length: 0), as the node route answers: Koa types an empty string, so the type goes.
    ctx.body = '';
    ctx.remove('Content-Type');
  });
  return router;
}
