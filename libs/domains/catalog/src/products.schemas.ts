/** Input of product search and lookup (the spec's parameter tables). */
const PRICE = { type: 'string', pattern: '^[0-9]{1,12}(\\.[0-9]{1,4})?$' } as const;
const COUNTRY = { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO alpha-2 market; UK is accepted as an alias of GB.' } as const;

/** Agent attribution tokens on request (the MCP tools always carry them). */
const ATTRIBUTION = {
  type: 'string',
  enum: ['none', 'token'],
  description:
    "none (default); token: every product carries `affiliate_attribution` (the Agentic Commerce Protocol's object: a signed, single-use token crediting the sale an AI agent makes to you, without a click).",
} as const;

export const SEARCH_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: {
      type: 'string',
      minLength: 3,
      maxLength: 200,
      description: 'Case-insensitive phrase in the title. Required unless brand, category or country is given.',
    },
    brand: { type: 'string', minLength: 2, maxLength: 200, description: 'Exact brand, case-insensitive.' },
    category: { type: 'string', minLength: 2, maxLength: 200, description: 'Text contained in the category.' },
    country: COUNTRY,
    merchant: { type: 'integer', minimum: 1, description: 'Merchant id (merchant.id).' },
    group: { type: 'integer', enum: [0, 1], default: 0, description: '1: one result per variant group (cheapest in-stock variant) with sizes and total.' },
    min_price: { ...PRICE, description: "Inclusive lower bound in each product's own currency." },
    max_price: { ...PRICE, description: 'Inclusive upper bound; not lower than min_price.' },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217; only products priced in it.' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    offset: { type: 'integer', minimum: 0, maximum: 10000, default: 0 },
    attribution: ATTRIBUTION,
  },
} as const;

export const LOOKUP_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ids: { type: 'string', minLength: 1, maxLength: 10000, description: 'Comma-separated product ids.' },
    gtins: { type: 'string', minLength: 1, maxLength: 2000, description: 'Comma-separated GTINs (8, 12, 13 or 14 digits, check digit validated).' },
    country: COUNTRY,
    merchant: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    offset: { type: 'integer', minimum: 0, maximum: 10000, default: 0 },
    attribution: ATTRIBUTION,
  },
} as const;

const PRODUCT = {
  type: 'object',
  required: ['id', 'gtin', 'title', 'price', 'currency', 'image', 'url', 'merchant', 'availability', 'country', 'updated_at'],
  properties: {
    id: { type: 'string' },
    gtin: { type: 'string' },
    title: { type: 'string' },
    price: { type: 'string', description: 'Decimal string, never a float.' },
    currency: { type: 'string' },
    image: { type: 'string' },
    url: { type: 'string', description: 'Tracked link attributed to the caller.' },
    merchant: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    availability: { type: 'string', enum: ['in_stock', 'out_of_stock', 'preorder', 'backorder'] },
    country: { type: 'string' },
    updated_at: { type: 'string', format: 'date-time' },
    affiliate_attribution: {
      type: 'object',
      description:
        "With attribution=token (and always over MCP): pass it as is to the merchant's checkout (ACP `affiliate_attribution`). The token credits one order, for this product's merchant, until expires_at.",
      required: ['provider', 'token', 'publisher_id', 'campaign_id', 'expires_at'],
      properties: {
        provider: { type: 'string', description: "The network's host." },
        token: { type: 'string', description: 'atp_… (signed; never share it beyond the checkout).' },
        publisher_id: { type: 'string' },
        campaign_id: { type: 'integer', description: 'The merchant (merchant.id).' },
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
    sizes: {
      type: 'array',
      description: 'With group=1 only.',
      items: { type: 'object', properties: { size: { type: 'string' }, product_id: { type: 'string' }, availability: { type: 'string' } } },
    },
  },
};

/** The response of search and lookup (OpenAPI and the MCP tools' output schema). */
export const PRODUCT_PAGE_SCHEMA = {
  type: 'object',
  required: ['products', 'count', 'limit', 'offset', 'next_offset', 'freshness_hours'],
  properties: {
    products: { type: 'array', items: PRODUCT },
    count: { type: 'integer' },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    next_offset: { type: ['integer', 'null'] },
    freshness_hours: { type: 'integer' },
    total: { type: 'integer', description: 'With group=1 only: the number of groups.' },
  },
};
