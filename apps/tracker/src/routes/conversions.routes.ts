import { merchantOf, requireMerchant } from '@cw/auth';
import { changeStatus, type ConversionRecord, INTAKE_INPUT, recordSale, STATUS_INPUT } from '@cw/conversions';
import { moneyIn } from '@cw/money';
import { route, type RouteSpec } from '@cw/http';
import type { TrackerDeps } from '../deps';

/** What a merchant sees of its conversion (its own order id included; never the publisher). */
function merchantView(c: ConversionRecord) {
  return {
    id: c._id,
    order_id: c.order_ref ?? null,
    click_id: c.click_id ?? null,
    program_id: c.program_id ?? null,
    channel: c.channel ?? 'link',
    status: c.status,
    reversed: c.reversed,
    sale_amount: moneyIn(c.sale_amount, c.currency),
    commission: moneyIn(c.commission, c.currency),
    currency: c.currency,
    occurred_at: c.occurred_at,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

const CONVERSION = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    order_id: { type: 'string' },
    click_id: { type: 'string' },
    program_id: { type: 'integer' },
    channel: { type: 'string', enum: ['link', 'code', 'agent', 'inquiry'] },
    status: { type: 'string', enum: ['pending', 'approved', 'declined'] },
    reversed: { type: 'boolean' },
    sale_amount: { type: 'string' },
    commission: { type: 'string' },
    currency: { type: 'string' },
    occurred_at: { type: 'string', format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const ERRORS = {
  400: { description: 'Invalid parameter' },
  401: { description: 'Not a merchant token' },
  429: { description: 'Rate limited (per merchant)' },
  503: { description: 'Unavailable' },
};

export function conversionRoutes(deps: TrackerDeps): RouteSpec[] {
  const auth = [requireMerchant(deps)];
  return [
    route({
      method: 'POST',
      path: '/conversions',
      operationId: 'reportConversion',
      summary: 'Report a sale on a click, a coupon code or an agent attribution token: 201 created (pending), 200 when the same order was reported before',
      description:
        "Merchant token (Bearer) only. Attribute by `click_id` (on one of your programs, not flagged as a bot, within the cookie window), else by an agent's `affiliate_attribution` object or its `attribution_token` (issued for your programs, not expired at the sale, crediting one order only), else by a publisher's `coupon_code`. With a `click_id`, the click alone decides (a code or token beside it is ignored and not spent). Tokens and codes are never echoed back.",
      tags: ['Conversions'],
      security: ['MerchantToken'],
      body: INTAKE_INPUT,
      before: auth,
      responses: {
        200: { description: 'The conversion of this order (unchanged)', schema: CONVERSION },
        201: { description: 'Created, pending', schema: CONVERSION },
        ...ERRORS,
        404: { description: 'click_not_found: no such click on your programs; code_not_found: no active coupon code of that name on your programs' },
        422: {
          description:
            "click_expired (older than the cookie window), click_is_bot, or attribution_invalid (the token is not this network's, not for your programs, expired, or spent by another order)",
        },
      },
      handler: async (ctx, { body }) => {
        const r = await recordSale(deps, merchantOf(ctx), body);
        ctx.status = r.created ? 201 : 200;
        ctx.body = merchantView(r.conversion);
      },
    }),
    route({
      method: 'PATCH',
      path: '/conversions/:id',
      operationId: 'changeConversionStatus',
      summary: 'Approve or decline a conversion (declining an approved one reverses it)',
      tags: ['Conversions'],
      security: ['MerchantToken'],
      pathParams: { id: { type: 'string' } },
      body: STATUS_INPUT,
      before: auth,
      responses: {
        200: { description: 'The changed conversion', schema: CONVERSION },
        ...ERRORS,
        404: { description: 'No such conversion of yours' },
        409: { description: 'invalid_transition' },
      },
      handler: async (ctx, { body }) => {
        ctx.body = merchantView(await changeStatus(deps, String(ctx.params.id), body.status, { merchantId: merchantOf(ctx).merchantId }));
      },
    }),
  ];
}
