import { randomBytes } from 'node:crypto';
import type { Context, Next } from 'koa';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Every response carries X-Request-Id: the caller's, when it is safe to echo, else a new one. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const incoming = ctx.get('X-Request-Id');
  const id = SAFE_ID.test(incoming) ? incoming : `req_${randomBytes(12).toString('hex')}`;
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
}
