import { merchantOf, requireMerchant } from '@cw/auth';
import { VERIFY_ATTRIBUTION_INPUT, verifyAttribution } from '@cw/conversions';
import { route, type RouteSpec } from '@cw/http';
import type { TrackerDeps } from '../deps';

const VERIFICATION = {
  type: 'object',
  required: ['valid', 'publisher_id', 'program_id', 'expires_at', 'spent'],
  properties: {
    valid: { type: 'boolean', description: 'Whether a sale of yours reported with this token now would be credited.' },
    reason: {
      type: 'string',
      enum: ['malformed', 'wrong_merchant', 'expired', 'spent'],
      description: "Why not: not a token of this network, issued for another merchant's programs, expired, or spent by an order already.",
    },
    publisher_id: { type: ['string', 'null'], description: 'The publisher it credits (null unless the token is yours).' },
    program_id: { type: ['integer', 'null'] },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    spent: { type: 'boolean', description: 'An order has spent it (it credits one order only).' },
  },
};

/** Merchants check an agent's attribution token before the order, spending nothing. */
export function attributionRoutes(deps: TrackerDeps): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/attributions/verify',
      operationId: 'verifyAttribution',
      summary: "Check an agent's attribution token without spending it",
      description:
        'Merchant token (Bearer) only. Answers 200 whether the token is valid for your programs now, and when it is yours, whom it credits and until when. Nothing is spent: the order you report with it is.',
      tags: ['Conversions'],
      security: ['MerchantToken'],
      body: VERIFY_ATTRIBUTION_INPUT,
      before: [requireMerchant(deps)],
      responses: {
        200: { description: 'The verdict', schema: VERIFICATION },
        400: { description: 'Invalid parameter' },
        401: { description: 'Not a merchant token' },
        429: { description: 'Rate limited (per merchant)' },
        503: { description: 'Unavailable' },
      },
      handler: async (ctx, { body }) => {
        ctx.body = await verifyAttribution(deps, merchantOf(ctx), body.token);
      },
    }),
  ];
}
