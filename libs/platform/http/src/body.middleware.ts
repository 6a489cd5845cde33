import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import { ApiError } from '@cw/errors';
import { toApiError } from './error.middleware';

const parser = koaBody({
  json: true,
  urlencoded: false,
  text: false,
  multipart: false,
  jsonLimit: '1mb',
  jsonStrict: false,
  onError: (err: Error, ctx: Context) => {
    throw toApiError(err, ctx) ?? new ApiError({ code: 'invalid_json', detail: 'The request body could not be read.' });
  },
});

/** JSON bodies only: a body of another type is 415; malformed JSON 400; over 1 MB 413. */
export async function jsonBody(ctx: Context, next: Next): Promise<void> {
  if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && Number(ctx.get('Content-Length') || 0) > 0 && !ctx.is('application/json', '+json')) {
    throw new ApiError({ code: 'unsupported_media_type', detail: 'Request bodies must be application/json.' });
  }
  await parser(ctx, next);
}
