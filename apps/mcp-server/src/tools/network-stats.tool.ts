import { networkStats } from '@cw/catalog';
import { defineTool } from '../tool';

const NETWORK_STATS_SCHEMA = {
  type: 'object',
  required: ['programs', 'merchants', 'markets', 'products_per_market', 'generated_at'],
  properties: {
    programs: { type: 'integer', description: 'Active programs.' },
    merchants: { type: 'integer', description: 'Merchants with an active program.' },
    markets: { type: 'array', items: { type: 'string' }, description: 'ISO alpha-2 countries served.' },
    products_per_market: {
      type: 'array',
      items: { type: 'object', required: ['country', 'products'], properties: { country: { type: 'string' }, products: { type: 'integer' } } },
    },
    generated_at: { type: 'string', format: 'date-time' },
  },
};

export const networkStatsTool = defineTool<Record<string, never>>({
  name: 'network_stats',
  title: 'Network statistics',
  description:
    'Public statistics of the affiliate network: how many programs and merchants are active, which markets (countries) they serve and how many fresh products each market has. Needs no API key; use it to decide which country to search in. Refreshed every few minutes.',
  input: { type: 'object', additionalProperties: false, properties: {} },
  output: NETWORK_STATS_SCHEMA,
  policy: null,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (_input, _principal, call) => {
    const stats = await networkStats(call.deps);
    return {
      data: stats,
      summary: `${stats.programs} active programs from ${stats.merchants} merchants in ${stats.markets.length} markets (${stats.markets.join(', ')}).`,
    };
  },
});
