import { randomBytes } from 'node:crypto';
import type { Context, Next } from 'koa';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const ID_BYTES = 12;
const POOL_IDS = 1024;

let pool = Buffer.alloc(0);
let at = 0;

/** A new request id, `req_` + 24 hex digits, from a pooled random buffer (one getrandom per 1,024 ids). */
export function newRequestId(): string {
  if (at >= pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    at = 0;
  }
  const id = pool.toString('hex', at, at + ID_BYTES);
  at += ID_BYTES;
  return `req_${id}`;
}

/** The caller's X-Request-Id when it is safe to echo, else a new one. */
export function requestIdFor(incoming: string | undefined): string {
  return incoming !== undefined && SAFE_ID.test(incoming) ? incoming : newRequestId();
}

/** Every response carries X-Request-Id: the caller's, when it is safe to echo, else a new one. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const id = requestIdFor(ctx.get('X-Request-Id'));
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
}
