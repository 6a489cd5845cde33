/**
 * `GET|POST /Apiv3/json`: HasOffers' (TUNE) affiliate API v3 as the tools built for it call it.
 * The reporting token is the `api_key`; answers are always HTTP 200 in HasOffers' envelope, with
 * the real status (200, 400, 401, 404, 405, 429, 503) in `response.httpStatus`. The same use cases
 * as the REST APIs answer: programs are offers, conversions are stats.
 */
import type { Context, Middleware, Next } from 'koa';
import getRawBody from 'raw-body';
import { verifyCredential } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { createLink } from '@cw/links';
import { listPrograms, programById, type ProgramView } from '@cw/programs';
import { enforceRateLimit } from '@cw/ratelimit';

import { Apiv3Error, parseParams, str, type Params } from './params';
import { getConversions, getStats } from './stats';
import type { ReportingApiDeps } from '../deps';

export const APIV3_PATH = '/Apiv3/json';
const MAX_BODY = '64kb';

function offer(p: ProgramView) {
  return {
    Offer: {
      id: String(p.id),
      name: p.name,
      description: p.description,
      require_approval: p.auto_approve ? '0' : '1',
      preview_url: p.default_landing_url,
      currency: p.currency,
      payout_type: 'cpa_percentage',
      default_payout: p.commission,
      status: p.status === 'active' ? 'active' : 'paused',
      approval_status: p.relationship === 'available' ? null : p.relationship === 'rejected' ? 'rejected' : p.relationship,
      merchant_id: String(p.merchant.id),
      merchant_name: p.merchant.name,
      countries: p.countries,
    },
  };
}

type Handler = (deps: ReportingApiDeps, ctx: Context, p: Params) => Promise<unknown>;

async function programs(deps: ReportingApiDeps, ctx: Context, includeAvailable: boolean): Promise<ProgramView[]> {
  const all: ProgramView[] = [];
  for (let page = 1; ; page++) {
    const r = await listPrograms(deps, ctx.state.principal, { include_available: includeAvailable, page, page_size: 1000 });
    all.push(...r.data);
    if (!r.has_more || page >= 10) return all;
  }
}

const byId = (list: ProgramView[]) => Object.fromEntries(list.map((p) => [String(p.id), offer(p)]));

function offerId(p: Params): number {
  const raw = str(p, 'id') ?? str(p, 'offer_id');
  if (raw === undefined) throw new Apiv3Error(400, 'offer_id is required');
  if (!/^\d{1,9}$/.test(raw)) throw new Apiv3Error(400, 'offer_id must be a positive integer');
  return Number(raw);
}

const TARGETS: Record<string, Record<string, Handler>> = {
  Affiliate_Report: {
    getStats: (deps, ctx, p) => getStats(deps, ctx.state.principal, p),
    getConversions: (deps, ctx, p) => getConversions(deps, ctx.state.principal, p),
  },
  Affiliate_Offer: {
    findAll: async (deps, ctx) => byId(await programs(deps, ctx, true)),
    findMyOffers: async (deps, ctx) => byId((await programs(deps, ctx, false)).filter((x) => x.relationship !== 'rejected')),
    findMyApprovedOffers: async (deps, ctx) => byId((await programs(deps, ctx, false)).filter((x) => x.relationship === 'approved')),
    findById: async (deps, ctx, p) => {
      const id = offerId(p);
      // The program as findAll lists it (an assignment of the caller's, or open to it), read by its id.
      const found = await programById(deps, ctx.state.principal, { program_id: id });
      if (!found) throw new Apiv3Error(404, `Offer ${id} not found`);
      return offer(found);
    },
    generateTrackingLink: async (deps, ctx, p) => {
      const id = offerId(p);
      const params = p.params === undefined ? {} : p.params;
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new Apiv3Error(400, 'params must be params[aff_sub] and params[url]');
      const { aff_sub, url } = params as Record<string, unknown>;
      if (aff_sub !== undefined && (typeof aff_sub !== 'string' || !/^[A-Za-z0-9._~-]{1,100}$/.test(aff_sub)))
        throw new Apiv3Error(400, 'params[aff_sub] must be 1 to 100 of A-Z a-z 0-9 . _ ~ -');
      if (url !== undefined && typeof url !== 'string') throw new Apiv3Error(400, 'params[url] must be a URL');
      // createLink carries the links API's own policy (demo accounts create no links), as on POST /links/ and MCP.
      const { link } = await createLink(deps, ctx.state.principal, {
        program_id: id,
        ...(aff_sub ? { subid: aff_sub } : {}),
        ...(url ? { landing_url: url } : {}),
      });
      return { click_url: link.url };
    },
  },
  Affiliate_AffiliateUser: {
    findAll: async (_deps, ctx) => {
      const pub = ctx.state.principal.publisher;
      return {
        [pub._id]: {
          AffiliateUser: { id: pub._id, affiliate_id: pub._id, first_name: null, last_name: null, email: null, status: pub.status, company: pub.name ?? null },
        },
      };
    },
  },
};

function envelope(ctx: Context, p: Params, httpStatus: number, data: unknown, message?: string) {
  const request: Record<string, unknown> = { ...p };
  delete request.api_key; // never echo the credential
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = {
    request,
    response:
      message === undefined
        ? { status: 1, httpStatus, data, errors: [], errorMessage: null }
        : { status: -1, httpStatus, data: '', errors: [{ publicMessage: message }], errorMessage: message },
  };
}

function asApiv3(e: unknown): Apiv3Error | undefined {
  if (e instanceof Apiv3Error) return e;
  if (e instanceof ApiError) return new Apiv3Error(e.status, e.status === 401 ? 'Invalid API key' : e.detail, e.headers);
  return undefined;
}

export function apiv3(deps: ReportingApiDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== APIV3_PATH) return next();
    let p: Params = {};
    try {
      if (ctx.method !== 'GET' && ctx.method !== 'POST')
        throw new Apiv3Error(405, `Method ${ctx.method} is not allowed: use GET or POST`, { Allow: 'GET, POST' });
      let body: string | undefined;
      if (ctx.method === 'POST' && ctx.request.length !== 0) {
        if (!ctx.is('application/x-www-form-urlencoded')) throw new Apiv3Error(415, 'POST bodies must be application/x-www-form-urlencoded');
        body = await getRawBody(ctx.req, { limit: MAX_BODY, encoding: 'utf8' }).catch((e: { type?: string }) => {
          throw new Apiv3Error(
            e.type === 'entity.too.large' ? 413 : 400,
            e.type === 'entity.too.large' ? `The body is over ${MAX_BODY}` : 'The body could not be read',
          );
        });
      }
      p = parseParams(ctx.querystring, body);
      const apiKey = p.api_key;
      // The spec keeps API keys out of URLs; the reporting token is what HasOffers tools send as api_key.
      const principal = await verifyCredential(deps.data.auth, typeof apiKey === 'string' ? apiKey : undefined, ['reporting_token']);
      ctx.state.principal = principal;
      await enforceRateLimit(ctx, deps.limiter, 'reportingToken', principal.publisher._id, deps.config.rateLimits.reportingToken);
      const target = str(p, 'Target');
      const method = str(p, 'Method');
      if (!target) throw new Apiv3Error(400, 'Target is required');
      if (!method) throw new Apiv3Error(400, 'Method is required');
      const methods = Object.hasOwn(TARGETS, target) ? TARGETS[target] : undefined;
      if (!methods) throw new Apiv3Error(404, `Unknown Target: ${target.slice(0, 100)}`);
      const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!handler) throw new Apiv3Error(404, `Unknown Method of ${target}: ${method.slice(0, 100)}`);
      envelope(ctx, p, 200, await handler(deps, ctx, p));
    } catch (e) {
      const err = asApiv3(e);
      if (!err) throw e; // infrastructure failures: classified by the error handler (503), rendered as HasOffers does
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      envelope(ctx, p, err.httpStatus, '', err.message);
    }
  };
}

/** The app's error renderer for this path: whatever escaped (503, 429 of the address budget) in the envelope. */
export function renderApiv3Error(ctx: Context, e: ApiError): boolean {
  if (ctx.path !== APIV3_PATH) return false;
  for (const [k, v] of Object.entries(e.headers)) ctx.set(k, v);
  envelope(ctx, {}, e.status, '', e.status >= 500 ? 'The service is unavailable; retry later' : e.detail);
  return true;
}
