import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import { CONTENT_SECURITY_POLICY, htmlSecurityHeaders, inlineSource } from './security-headers';

const require = createRequire(import.meta.url);
let redocBundle: string | undefined;

/**
 * The Redoc page's policy: the strict one, except what Redoc needs to run: its one inline start
 * script (by hash), the styles its components inject (inline styles), and its search index in a
 * worker made from a blob. Still no other origin, no eval, no framing.
 */
export function redocPolicy(init: string): string {
  return CONTENT_SECURITY_POLICY.replace("script-src 'self'", `script-src 'self' ${inlineSource(init)}`)
    .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
    .concat("; worker-src 'self' blob:");
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Serves an OpenAPI document and a Redoc page for it (the Redoc bundle is served locally). */
export function docsRouter(opts: { prefix: string; title: string; document: () => Record<string, unknown> }): Router {
  const router = new Router({ prefix: opts.prefix || undefined });
  const init = `Redoc.init(${JSON.stringify(`${opts.prefix}/openapi.json`)}, { hideDownloadButton: false }, document.getElementById('redoc'));`;
  const policy = redocPolicy(init);
  router.get('/openapi.json', (ctx) => {
    ctx.body = opts.document();
  });
  router.get('/docs/redoc.standalone.js', (ctx) => {
    redocBundle ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    ctx.type = 'application/javascript';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = redocBundle;
  });
  router.get('/docs', (ctx) => {
    htmlSecurityHeaders(ctx, ctx.secure, policy);
    ctx.type = 'text/html';
    ctx.body = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(opts.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><div id="redoc"></div>
<script src="${escapeHtml(opts.prefix)}/docs/redoc.standalone.js"></script>
<script>${init}</script>
</body></html>`;
  });
  return router;
}
