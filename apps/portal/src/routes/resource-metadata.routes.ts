/**
 * Protected resource metadata (RFC 9728) of the platform's two OAuth resources, which the MCP
 * authorization spec has clients read first: where to get a token (this portal, the issuer) and
 * which scopes the resource takes. Served at the well-known path before each resource's path, with
 * and without a trailing slash (clients spell it both ways), readable from any origin.
 */
import type Koa from 'koa';
import { resourceIndicators, resourceScopes, RESOURCE_SCOPES } from '@cw/oauth';
import type { PlatformConfig } from '@cw/config';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function resourceMetadata(config: Pick<PlatformConfig, 'portalUrl'>): Koa.Middleware {
  const issuer = config.portalUrl.replace(/\/+$/, '');
  const r = resourceIndicators(issuer);
  const scopes = resourceScopes(issuer);
  const documents = new Map<string, Record<string, unknown>>();
  for (const [resource, name, docs] of [
    [r.publisherApi, 'Publisher Affiliate API', `${issuer}/api/v1/publisher/docs`],
    [r.mcp, 'Affiliate network MCP server', `${issuer}/api/v1/mcp/docs`],
  ] as const) {
    const doc = {
      resource,
      authorization_servers: [issuer],
      scopes_supported: [...(scopes[resource] ?? Object.keys(RESOURCE_SCOPES)), 'offline_access'],
      bearer_methods_supported: ['header'],
      resource_name: name,
      resource_documentation: docs,
    };
    const path = `${WELL_KNOWN}${new URL(resource).pathname}`;
    documents.set(path, doc);
    documents.set(`${path}/`, doc);
  }
  return async (ctx, next) => {
    const doc = documents.get(ctx.path);
    if (!doc) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { detail: 'Protected resource metadata is read with GET.', code: 'method_not_allowed', request_id: ctx.state.requestId };
      return;
    }
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = doc;
  };
}
