/** Response schemas of the account routes (OpenAPI and the MCP tools' output schema). */
import { AS_OF } from '@cw/stats';

/** USD totals: 2 decimals. */
const USD = { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' };
/** An amount at its currency's minor unit (JPY none, EUR 2, BHD 3, CLF 4). */
const MONEY = { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,4})?$', description: "Decimal string at the currency's minor unit." };
const BY_CURRENCY = { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, amount: MONEY } } };

export const ACCOUNT_SCHEMA = {
  type: 'object',
  properties: {
    account_id: { type: 'string' },
    name: { type: 'string' },
    website: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active'] },
    credential: { type: 'object', properties: { type: { type: 'string' }, kind: { type: ['string', 'null'] }, prefix: { type: 'string' } } },
    access: { type: 'object' },
    limits: { type: 'object' },
  },
};

export const PAYMENT_STATUS_SCHEMA = {
  type: 'object',
  properties: {
    account_id: { type: 'string' },
    currency_note: { type: 'string' },
    as_of: AS_OF,
    approved_unpaid: { type: 'object', properties: { by_currency: BY_CURRENCY, total_usd: USD } },
    pending_review: { type: 'object', properties: { window_days: { type: 'integer' }, by_currency: BY_CURRENCY, total_usd: USD } },
    next_payment: { type: 'object' },
    payment_method: { type: 'object', properties: { type: { type: 'string' }, last4: { type: ['string', 'null'] } } },
  },
};
