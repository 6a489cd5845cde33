/** Response schemas of the conversion and report routes (OpenAPI and the MCP tools' output schema). */
import { AS_OF } from '@cw/stats';
import { pageEnvelopeSchema } from '@cw/usecase';

const BY_CURRENCY = { type: 'object', additionalProperties: { type: 'string' }, description: 'Decimal strings per ISO 4217 currency.' };

/** One conversion as the list shows it (the detail adds its events: conversion-detail.service.ts). */
export const CONVERSION_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'status',
    'subid',
    'campaign_id',
    'program_id',
    'merchant',
    'sale_amount',
    'commission',
    'currency',
    'click_id',
    'deeplink_id',
    'source',
    'occurred_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
    subid: { type: ['string', 'null'] },
    campaign_id: { type: ['integer', 'null'] },
    program_id: { type: ['integer', 'null'] },
    merchant: { type: ['object', 'null'], properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    sale_amount: { type: 'string', description: 'Decimal string.' },
    commission: { type: 'string', description: 'Decimal string (negative for a correction).' },
    currency: { type: 'string' },
    click_id: { type: ['string', 'null'] },
    deeplink_id: { type: ['string', 'null'] },
    source: { type: 'string', enum: ['v1', 'ledger'] },
    channel: {
      type: 'string',
      enum: ['link', 'code', 'agent', 'inquiry'],
      description: 'How the sale was attributed: a tracked link, a personal coupon code, an agent attribution token, or an accepted missing-sale inquiry.',
    },
    reason: { type: ['string', 'null'], description: 'Ledger entries only.' },
    reversed: { type: 'boolean', description: 'Declined after approval.' },
    occurred_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

/** The response of GET /conversions/ (OpenAPI and the MCP tools' output schema). */
export const CONVERSION_PAGE_SCHEMA = pageEnvelopeSchema(CONVERSION_SCHEMA, { cursor: true });
(CONVERSION_PAGE_SCHEMA.properties as Record<string, unknown>).subid_rollup = {
  type: 'array',
  description: 'Per sub-ID over the whole filtered set, not only this page.',
  items: { type: 'object', properties: { subid: { type: ['string', 'null'] }, conversions: { type: 'integer' }, commission: BY_CURRENCY } },
};

const REPORT_ROW = {
  type: 'object',
  properties: {
    key: { type: ['string', 'null'] },
    conversions: { type: 'integer' },
    approved: { type: 'integer' },
    pending: { type: 'integer' },
    declined: { type: 'integer' },
    sale_amount: BY_CURRENCY,
    commission: BY_CURRENCY,
  },
};

/** The response of GET /reports/. */
export const REPORT_SCHEMA = {
  type: 'object',
  properties: {
    group_by: { type: 'string' },
    date_from: { type: 'string' },
    date_to: { type: 'string' },
    timezone: { type: 'string' },
    as_of: AS_OF,
    rows: { type: 'array', items: REPORT_ROW },
    totals: REPORT_ROW,
  },
};
