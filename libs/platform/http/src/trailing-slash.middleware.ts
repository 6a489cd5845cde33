import type { Context, Next } from 'koa';

/** Paths are accepted with and without the trailing slash, without a redirect. */
export async function trailingSlash(ctx: Context, next: Next): Promise<void> {
  if (ctx.path.length > 1 && ctx.path.endsWith('/')) ctx.path = ctx.path.replace(/\/+$/, '') || '/';
  await next();
}
