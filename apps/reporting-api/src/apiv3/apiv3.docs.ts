/**
 * `/Apiv3/json` in the reporting document. The endpoint is HasOffers' own shape (served by
 * apiv3.middleware.ts, not a route): these specs only describe it.
 */
import type { RouteSpec } from '@cw/http';
import { APIV3_PATH } from './apiv3.middleware';

const PARAMETERS = {
  type: 'object',
  properties: {
    api_key: { type: 'string', minLength: 1, description: 'The reporting token (rpt_…): HasOffers tools send it as api_key.' },
    Target: { type: 'string', enum: ['Affiliate_Report', 'Affiliate_Offer', 'Affiliate_AffiliateUser'] },
    Method: {
      type: 'string',
      enum: ['getStats', 'getConversions', 'findAll', 'findMyOffers', 'findMyApprovedOffers', 'findById', 'generateTrackingLink'],
      description:
        'Affiliate_Report: getStats, getConversions. Affiliate_Offer: findAll, findMyOffers, findMyApprovedOffers, findById, generateTrackingLink. Affiliate_AffiliateUser: findAll.',
    },
    NetworkId: { type: 'string', minLength: 1, description: 'Accepted and ignored.' },
    'fields[]': {
      type: 'string',
      minLength: 1,
      description:
        'Repeat for each field: Stat.clicks, Stat.conversions, Stat.payout, Stat.sale_amount, Stat.currency, Stat.date, Stat.offer_id, Stat.affiliate_info1 (the sub-ID), Offer.name, Stat.conversion_status, …',
    },
    'groups[]': {
      type: 'string',
      minLength: 1,
      description:
        'Repeat for each group: Stat.date, Stat.month, Stat.year, Stat.offer_id, Stat.affiliate_info1, Offer.name, Stat.currency (rows never mix currencies).',
    },
    data_start: { type: 'string', format: 'date', description: 'First day (UTC, or shifted by hour_offset).' },
    data_end: { type: 'string', format: 'date', description: 'Last day, inclusive.' },
    hour_offset: { type: 'integer', minimum: -23, maximum: 23, description: 'Shifts day boundaries by whole hours.' },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    page: { type: 'integer', minimum: 1 },
    totals: { type: 'boolean' },
    offer_id: { type: 'integer', minimum: 1, description: 'findById and generateTrackingLink.' },
  },
} as const;

const ENVELOPE = {
  type: 'object',
  required: ['request', 'response'],
  properties: {
    request: { type: 'object', description: 'The parameters as received (api_key left out).' },
    response: {
      type: 'object',
      required: ['status', 'httpStatus', 'errors'],
      properties: {
        status: { type: 'integer', enum: [1, -1], description: '1 success, -1 error.' },
        httpStatus: { type: 'integer', description: 'The real status: 200, 400, 401, 404, 405, 429 or 503.' },
        data: {
          description: 'Reports: {page, current, count, pageCount, data: [{Stat, Offer}], totals?}; offers: {<id>: {Offer}}; the rest as HasOffers answers.',
        },
        errors: { type: 'array', items: { type: 'object', properties: { publicMessage: { type: 'string' } } } },
        errorMessage: { type: ['string', 'null'] },
      },
    },
  },
} as const;

const DESCRIPTION =
  "HasOffers' (TUNE) affiliate API v3, as existing tools call it: `Target`, `Method`, `api_key` (the reporting token), PHP-style arrays (`fields[]`, `groups[]`, `filters[Stat.date][conditional]=BETWEEN`, `filters[Stat.date][values][]`, `sort[Stat.date]=desc`). Every answer is HTTP 200 in HasOffers' envelope, errors included: the real status is `response.httpStatus`. See docs/hasoffers.md.";

export function apiv3Docs(): RouteSpec[] {
  const spec = (method: 'GET' | 'POST', operationId: string): RouteSpec => ({
    method,
    path: APIV3_PATH,
    operationId,
    summary: method === 'GET' ? 'HasOffers API v3 (query parameters)' : 'HasOffers API v3 (form or JSON body with the same parameters)',
    description: DESCRIPTION,
    tags: ['HasOffers API v3'],
    security: [],
    ...(method === 'GET' ? { query: PARAMETERS } : { body: PARAMETERS }),
    responses: { 200: { description: "HasOffers' envelope (errors too: see response.httpStatus)", schema: ENVELOPE } },
    // Any request to the path, another method included, is answered this way.
    extensions: { 'x-status-in-envelope': true },
    handler: () => undefined,
  });
  return [spec('GET', 'apiv3Get'), spec('POST', 'apiv3Post')];
}
