/**
 * The index of every API reference, at `/docs` and `/`: an HTML page for browsers, JSON for
 * anything that does not ask for HTML. Served by the publisher API (the portal's front door);
 * each entry's reference is served by its own app.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { CONTENT_SECURITY_POLICY, htmlSecurityHeaders, inlineSource } from '@cw/http';

export interface ApiReference {
  title: string;
  /** Path prefix of the app's reference: `{prefix}/docs` and `{prefix}/openapi.json`. */
  prefix: string;
  /** Who calls it, and with which credential. */
  about: string;
}

export const API_REFERENCES: readonly ApiReference[] = [
  {
    title: 'Publisher Affiliate API',
    prefix: '/api/v1/publisher',
    about: 'Publishers, with one API key: products, programs, links, conversions, reports, clicks, postbacks, payment status, offers.',
  },
  {
    title: 'Reporting API',
    prefix: '/api/v1/affiliate-reporting',
    about: "Reporting tools, with the reporting token: sales, summary, CSV export, and HasOffers' /Apiv3/json.",
  },
  { title: 'Product feeds', prefix: '/api/v1/feeds', about: 'Feed partners: signed Google Shopping XML, CSV, TSV and JSON feeds of tracked products.' },
  { title: 'Instant monetization API', prefix: '/api/v1/monetize', about: 'Creators without an account: provisional tracking links at once.' },
  { title: 'MCP', prefix: '/api/v1/mcp', about: 'AI agents: the Model Context Protocol (JSON-RPC over Streamable HTTP) with the API key.' },
  { title: 'Tracking API', prefix: '/api/v1/track', about: 'Merchants, with a merchant token: report sales on clicks, approve or decline them.' },
  {
    title: 'Publisher portal API',
    prefix: '/portal/api',
    about: "The portal's own endpoints (its pages call them) with the session cookie: sign-in, keys, postback, team, security log.",
  },
];

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}li{margin:0 0 1rem}';
/** The strict policy, with the page's one inline style named by its hash. */
const POLICY = CONTENT_SECURITY_POLICY.replace("style-src 'self'", `style-src 'self' ${inlineSource(STYLE)}`);

function page(): string {
  const items = API_REFERENCES.map(
    (r) => `<li><a href="${r.prefix}/docs">${escape(r.title)}</a> <small>(<a href="${r.prefix}/openapi.json">OpenAPI</a>)</small><br>${escape(r.about)}</li>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body><h1>API reference</h1>
<p>Each API has a getting-started section, its credentials and example answers. Tracked links are <code>/c/{code}</code>.</p>
<ul>
${items}
</ul></body></html>`;
}

/** `GET /docs` and `GET /`: the index of every API reference. */
export function apiIndexRouter(): Router {
  const router = new Router();
  const index = (ctx: Context) => {
    if (ctx.accepts('json', 'html') === 'html') {
      htmlSecurityHeaders(ctx, ctx.secure, POLICY);
      ctx.type = 'text/html';
      ctx.body = page();
      return;
    }
    ctx.body = { data: API_REFERENCES.map((r) => ({ title: r.title, about: r.about, docs: `${r.prefix}/docs`, openapi: `${r.prefix}/openapi.json` })) };
  };
  router.get('/', index);
  router.get('/docs', index);
  return router;
}
