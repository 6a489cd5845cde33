import Koa from 'koa';
import { pino } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { errorHandler } from './error.middleware';
import { CONTENT_SECURITY_POLICY, htmlSecurityHeaders, inlineSource, securityHeaders } from './security-headers';

const SCRIPT = 'document.forms[0].submit()';

const app = new Koa();
app.use(securityHeaders);
app.use(errorHandler(pino({ level: 'silent' })));
app.use((ctx) => {
  if (ctx.path === '/json') ctx.body = { ok: true };
  else if (ctx.path === '/bare-page') {
    ctx.type = 'html';
    ctx.body = '<!doctype html><p>forgot its headers</p>';
  } else if (ctx.path === '/own-page') {
    htmlSecurityHeaders(ctx, false, "default-src 'self'; frame-ancestors 'none'; worker-src blob:");
    ctx.type = 'html';
    ctx.body = '<!doctype html><p>its own</p>';
  } else if (ctx.path === '/inline-script') {
    // As oidc-provider's form_post page: its script's hash added to the policy it finds.
    const csp = ctx.response.get('Content-Security-Policy');
    if (csp) ctx.set('Content-Security-Policy', csp.replace("script-src 'self'", `script-src 'self' ${inlineSource(SCRIPT)}`));
    ctx.type = 'html';
    ctx.body = `<!doctype html><form method="post"></form><script>${SCRIPT}</script>`;
  } else if (ctx.path === '/redirect') {
    // As the tracker's: a redirect without a body (a Referrer-Policy here would reach the landing page).
    ctx.status = 302;
    ctx.set('Location', 'https://shop.example/');
    ctx.body = '';
    ctx.remove('Content-Type');
  } else throw new Error('boom');
});
const server = app.callback();
const browser = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('security headers', () => {
  it('mark every answer nosniff, errors included, and give answers that are not HTML no page policy', async () => {
    for (const path of ['/json', '/redirect', '/fails']) {
      for (const headers of [{}, browser]) {
        const res = await request(server).get(path).set(headers);
        expect(res.headers['x-content-type-options'], path).toBe('nosniff');
        expect(res.headers['content-security-policy'], path).toBeUndefined();
        expect(res.headers['referrer-policy'], path).toBeUndefined();
      }
    }
  });

  it('give an HTML page that set no headers the strict set: policy, frame protection, no referrer', async () => {
    for (const headers of [{}, browser]) {
      const res = await request(server).get('/bare-page').set(headers);
      expect(res.headers).toMatchObject({
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
    }
  });

  it("keep a page's own policy", async () => {
    const res = await request(server).get('/own-page').set(browser);
    expect(res.headers['content-security-policy']).toBe("default-src 'self'; frame-ancestors 'none'; worker-src blob:");
  });

  it('let a page that names its one inline script by hash in the policy it finds keep it (a navigation has the policy before the page renders)', async () => {
    const res = await request(server).get('/inline-script').set(browser);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY.replace("script-src 'self'", `script-src 'self' ${inlineSource(SCRIPT)}`));
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
