/** Response schemas of the account routes (OpenAPI and the MCP tools' output schema). */
const MONEY = { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' };
const BY_CURRENCY = { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, amount: MONEY } } };

export const ACCOUNT_SCHEMA = {
  type: 'object',
  properties: {
    account_id: { type: 'string' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['active'] },
    credential: { type: 'object', properties: { type: { type: 'string' }, kind: { type: ['string', 'null'] }, prefix: { type: 'string' } } },
    access: { type: 'object' },
    limits: { type: 'object' },
  },
};

export const PAYMENT_STATUS_SCHEMA = {
  type: 'object',
  properties: {
    approved_unpaid: { type: 'object', properties: { by_currency: BY_CURRENCY, total_usd: MONEY } },
    pending_review: { type: 'object', properties: { window_days: { type: 'integer' }, by_currency: BY_CURRENCY, total_usd: MONEY } },
    next_payment: { type: 'object' },
    payment_method: { type: 'object', properties: { type: { type: 'string' }, last4: { type: ['string', 'null'] } } },
  },
};
