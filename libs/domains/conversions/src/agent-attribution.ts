/**
 * Sales an AI agent made, and sales by a publisher's coupon code: the intake's paths beside the
 * click. A token (`atp_…`, @cw/links' attribution tokens) is judged for the merchant reporting it
 * (signed by the platform, its audience this merchant, not expired at the sale) and spent once:
 * its nonce is written to `attribution_spends` with the order's conversion id before the
 * conversion is created, so a second order with the same token is refused and the same order
 * again (a retry) goes on. A code is looked up among the merchant's active codes (@cw/codes).
 * Neither a token nor a code is echoed or logged: errors name the field, never its value.
 */
import { ApiError } from '@cw/errors';
import type { MerchantPrincipal } from '@cw/auth';
import { readAttributionToken, tokenTimeProblem, type AttributionClaims } from '@cw/links';
import type { InputOf } from '@cw/usecase';
import type { INTAKE_INPUT } from './conversion.schemas';
import { recordAttributedSale, type SaleAttribution } from './attributed-sale';
import type { ConversionRecord } from './data/conversion.schema';
import { conversionId as conversionIdOf, saleTime } from './lifecycle';
import { own, type ConversionsDeps, type IntakeDeps } from './deps';

/** Why a token does not credit this merchant's sale (the verify endpoint's `reason`). */
export type TokenProblem = 'malformed' | 'wrong_merchant' | 'expired' | 'spent';

/** What the intake refuses besides (each 422 `attribution_invalid`; verify, judged now, says `expired`): decision 0057. */
type IntakeTokenProblem = TokenProblem | 'before_issue' | 'late';

const TOKEN_DETAIL: Record<IntakeTokenProblem, string> = {
  malformed: 'The attribution token is not one this network issued.',
  wrong_merchant: 'The attribution token was not issued for your programs.',
  expired: 'The attribution token had expired at the time of the sale.',
  spent: 'The attribution token has credited another order already (a token credits one order).',
  before_issue: 'The sale is dated before the attribution token was issued.',
  late: 'The attribution token expired more than 30 days ago: it credits no sale any more, whatever its date.',
};

const refused = (problem: IntakeTokenProblem) => new ApiError({ code: 'attribution_invalid', detail: TOKEN_DETAIL[problem] });

/** The token's claims for this merchant, for a sale at `at` reported at `presentedAt`, or why not (spending not judged). */
export function judgeToken(
  deps: Pick<ConversionsDeps, 'config'>,
  merchantId: number,
  token: string,
  at: Date,
  presentedAt: Date = at,
): { claims: AttributionClaims; problem?: undefined } | { claims?: AttributionClaims; problem: Exclude<IntakeTokenProblem, 'spent'> } {
  const claims = readAttributionToken(deps.config.keys, token);
  if (!claims) return { problem: 'malformed' };
  // Another merchant's token is told apart from a forged one by nothing but the reason.
  if (claims.merchantId !== merchantId) return { problem: 'wrong_merchant' };
  const problem = tokenTimeProblem(claims, at, presentedAt);
  return problem ? { claims, problem } : { claims };
}

/** Writes the token's spend for this conversion: false when another conversion spent it. */
async function spend(deps: Pick<ConversionsDeps, 'data'>, claims: AttributionClaims, conversionId: string, now: Date): Promise<boolean> {
  const { AttributionSpend } = own(deps);
  try {
    await AttributionSpend.create({
      _id: claims.nonce,
      conversion_id: conversionId,
      merchant_id: claims.merchantId,
      expires_at: claims.expiresAt,
      created_at: now,
    });
    return true;
  } catch (e) {
    if ((e as { code?: number }).code !== 11000) throw e;
    const held = await AttributionSpend.findById(claims.nonce, { conversion_id: 1 }).lean<{ conversion_id: string }>();
    return held?.conversion_id === conversionId;
  }
}

/** The token an intake names: `affiliate_attribution.token`, else `attribution_token`. */
export const tokenOf = (input: Pick<InputOf<typeof INTAKE_INPUT>, 'affiliate_attribution' | 'attribution_token'>): string | undefined =>
  input.affiliate_attribution?.token ?? input.attribution_token;

/**
 * A sale without a click id: by the agent's token (channel `agent`), else by the coupon code
 * (channel `code`); a known order answers its conversion first (dedupe).
 */
export async function recordSaleWithoutClick(
  deps: IntakeDeps,
  merchant: MerchantPrincipal,
  input: InputOf<typeof INTAKE_INPUT>,
  now: Date,
): ReturnType<typeof recordAttributedSale> {
  const occurredAt = saleTime(input.occurred_at, now);
  const conversionId = conversionIdOf(merchant.merchantId, input.order_id);
  // The same order again is the dedupe (before any token is judged or spent).
  const existing = await own(deps).Conversion.findById(conversionId).lean<ConversionRecord>();
  if (existing) return { created: false, conversion: existing };
  const sale = { order_id: input.order_id, amount: input.amount, currency: input.currency, occurred_at: occurredAt };
  const token = tokenOf(input);
  if (token !== undefined) {
    const judged = judgeToken(deps, merchant.merchantId, token, occurredAt, now);
    if (judged.problem) throw refused(judged.problem);
    const { claims } = judged;
    if (!(await spend(deps, claims, conversionId, now))) throw refused('spent');
    const attribution: SaleAttribution = {
      publisher_id: claims.publisherId,
      program_id: claims.programId,
      campaign_id: claims.merchantId,
      subid: claims.subid,
    };
    return recordAttributedSale(deps, merchant.merchantId, attribution, sale, { channel: 'agent', now });
  }
  if (input.coupon_code !== undefined) {
    const code = await deps.data.codes.activeAt(merchant.merchantId, input.coupon_code);
    if (!code)
      throw new ApiError({
        code: 'code_not_found',
        detail: 'No active coupon code of that name on your programs.',
        errors: [{ param: 'coupon_code', detail: 'is not an active code' }],
      });
    return recordAttributedSale(
      deps,
      merchant.merchantId,
      { publisher_id: code.publisher_id, program_id: code.program_id, campaign_id: code.merchant_id, code_id: code._id },
      sale,
      { channel: 'code', now },
    );
  }
  throw new ApiError({
    code: 'invalid_parameter',
    detail: "Invalid parameter 'click_id': is required unless coupon_code, affiliate_attribution or attribution_token is given.",
    errors: [{ param: 'click_id', detail: 'is required unless coupon_code, affiliate_attribution or attribution_token is given' }],
  });
}

export const VERIFY_ATTRIBUTION_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 1000, description: 'The attribution token (atp_…) an agent passed.' } },
} as const;

/**
 * Whether a token would credit a sale of this merchant now, spending nothing: `valid`, the
 * `reason` when not (`malformed`, `wrong_merchant`, `expired`, `spent`), and for the merchant's
 * own tokens whom and which program it names, until when, and whether an order spent it.
 */
export async function verifyAttribution(deps: Pick<ConversionsDeps, 'config' | 'data'>, merchant: MerchantPrincipal, token: string, now = new Date()) {
  const judged = judgeToken(deps, merchant.merchantId, token, now);
  const claims = judged.problem === 'malformed' || judged.problem === 'wrong_merchant' ? undefined : judged.claims;
  const spent = claims ? !!(await own(deps).AttributionSpend.exists({ _id: claims.nonce })) : false;
  // Judged now: a sale cannot be before the issue, and a late token is an expired one.
  const problem: TokenProblem | undefined = judged.problem === 'late' || judged.problem === 'before_issue' ? 'expired' : judged.problem;
  const reason: TokenProblem | undefined = problem ?? (spent ? 'spent' : undefined);
  return {
    valid: reason === undefined,
    ...(reason ? { reason } : {}),
    publisher_id: claims?.publisherId ?? null,
    program_id: claims?.programId ?? null,
    expires_at: claims ? claims.expiresAt.toISOString() : null,
    spent,
  };
}
