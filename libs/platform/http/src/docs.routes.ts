import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Router from '@koa/router';

const require = createRequire(import.meta.url);
let redocBundle: string | undefined;

/** Serves an OpenAPI document and a Redoc page for it (the Redoc bundle is served locally). */
export function docsRouter(opts: { prefix: string; title: string; document: () => Record<string, unknown> }): Router {
  const router = new Router({ prefix: opts.prefix || undefined });
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
    ctx.type = 'text/html';
    ctx.body = `<!doctype html>
<html><head><meta charset="utf-8"><title>${opts.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><div id="redoc"></div>
<script src="${opts.prefix}/docs/redoc.standalone.js"></script>
<script>Redoc.init('${opts.prefix}/openapi.json', { hideDownloadButton: false }, document.getElementById('redoc'));</script>
</body></html>`;
  });
  return router;
}
