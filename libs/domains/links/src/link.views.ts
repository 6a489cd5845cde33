import { HEALTH_SCHEMA } from './link-health';
import { ROUTES_SCHEMA } from './link-routes';

/** A tracking link as the API shows it (OpenAPI and the MCP tools' output schema). */
export const LINK_SCHEMA = {
  type: 'object',
  required: ['id', 'url', 'deeplink_id', 'program_id', 'campaign_id', 'subid', 'landing_url', 'health', 'created_at'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', description: '{tracking_url}/c/{code}' },
    deeplink_id: { type: 'string', description: 'Filter of GET /clicks/.' },
    program_id: { type: 'integer' },
    campaign_id: { type: 'integer' },
    subid: { type: ['string', 'null'] },
    landing_url: { type: 'string' },
    routes: { ...ROUTES_SCHEMA, description: 'Routing rules (smart links), tried in order; [] when the link has none.' },
    health: { ...HEALTH_SCHEMA, description: "Whether the link's target can still earn, and since when (the health pass; GET /links/?health= filters by it)." },
    check_landing: { type: 'boolean', description: 'Whether the health check also asks the landing URL (unreachable when it does not answer).' },
    fallback: {
      type: 'boolean',
      description:
        "The link's own GTIN fallback switch (product links): false when turned off on the link. The account's `link_fallback` setting applies as well.",
    },
    created_at: { type: 'string', format: 'date-time' },
  },
};

/** A recorded click as GET /clicks/ lists it. */
export const CLICK_SCHEMA = {
  type: 'object',
  required: ['id', 'created_at', 'deeplink_id', 'program_id', 'campaign_id', 'sub_id', 'is_bot'],
  properties: {
    id: { type: 'string', description: 'The click id (cw_click_id on the landing URL).' },
    created_at: { type: 'string', format: 'date-time' },
    deeplink_id: { type: 'string' },
    program_id: { type: 'integer' },
    campaign_id: { type: 'integer' },
    sub_id: { type: ['string', 'null'] },
    referrer: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    is_bot: { type: 'boolean' },
    bot_reason: {
      type: ['string', 'null'],
      description:
        'user_agent, no_user_agent, rate, agent (an assistant fetching for a person), or datacenter (an address in a hosting or data-centre network).',
    },
    route: { type: ['integer', 'null'], description: "The index of the link's route that answered, or null: the link's own landing URL." },
    fallback: {
      type: ['object', 'null'],
      required: ['from_program', 'to_program'],
      properties: { from_program: { type: 'integer' }, to_program: { type: 'integer' } },
      description:
        "A product link's GTIN fallback: the link's program (whose product was out of stock or no longer served) and the program that answered, to which the click is attributed; null when the link's own program answered.",
    },
  },
};
