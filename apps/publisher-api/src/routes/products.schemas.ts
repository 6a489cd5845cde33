import type { JsonSchema } from '@cw/http';

const PRODUCT: JsonSchema = {
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
    sizes: {
      type: 'array',
      description: 'With group=1 only.',
      items: { type: 'object', properties: { size: { type: 'string' }, product_id: { type: 'string' }, availability: { type: 'string' } } },
    },
  },
};

export const PRODUCT_PAGE: JsonSchema = {
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
