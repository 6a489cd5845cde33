/**
 * A sale whose attribution is already decided (a merchant-accepted missing-sale inquiry; the
 * channels that are not a click id): created once per (merchant, order id) exactly as the intake
 * creates one (the same deterministic id, commission from the program's terms, the
 * `sale.created` event and the log's flag), with
 * its `channel`. No cookie window: whoever decided the attribution decided it.
 */
import { ApiError } from '@cw/errors';
import { formatDecimal, isCurrency, minorUnits, parseDecimal } from '@cw/money';
import type { ConversionChannel, ConversionRecord } from './data/conversion.schema';
import { commissionFor, conversionId, saleEvent, type RecordedSale } from './lifecycle';
import { own, type ConversionsDeps } from './deps';

/** Who and what a sale is credited to. */
export interface SaleAttribution {
  publisher_id: string;
  program_id: number;
  campaign_id: number;
  click_id?: string;
  link_id?: string;
  subid?: string;
  /** A sale by a personal coupon code: the code's id (@cw/codes). */
  code_id?: string;
}

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

/** Created (201-like) once per (merchant, order id); the same order again answers its conversion with `created: false`, changing nothing. */
export async function recordAttributedSale(
  deps: Pick<ConversionsDeps, 'data'>,
  merchantId: number,
  attribution: SaleAttribution,
  input: { order_id: string; amount: string; currency: string; occurred_at: Date },
  opts: { channel: ConversionChannel; now?: Date },
): Promise<RecordedSale> {
  if (!isCurrency(input.currency)) throw invalid('currency', `"${input.currency}" is not an ISO 4217 currency`);
  const units = minorUnits(input.currency);
  const amount = parseDecimal(input.amount);
  if (amount.scale > units) throw invalid('amount', `has more decimals than ${input.currency} allows (${units})`);
  const now = opts.now ?? new Date();
  const id = conversionId(merchantId, input.order_id);
  const existing = await own(deps).Conversion.findById(id).lean<ConversionRecord>();
  if (existing) return { created: false, conversion: existing };
  const program = await deps.data.programs.byId(attribution.program_id, { commission_rate: 1, commission_fixed: 1, currency: 1 });
  const doc = {
    _id: id,
    publisher_id: attribution.publisher_id,
    program_id: attribution.program_id,
    campaign_id: attribution.campaign_id,
    ...(attribution.click_id ? { click_id: attribution.click_id } : {}),
    ...(attribution.link_id ? { link_id: attribution.link_id } : {}),
    ...(attribution.code_id ? { code_id: attribution.code_id } : {}),
    subid: attribution.subid ?? '',
    channel: opts.channel,
    order_ref: input.order_id,
    status: 'pending' as const,
    sale_amount: formatDecimal(amount, units),
    commission: commissionFor(program ?? {}, input.amount, input.currency),
    currency: input.currency,
    occurred_at: input.occurred_at,
    reversed: false,
    paid: false,
    source: 'v1' as const,
    events: [saleEvent('sale.created', now)],
    log_pending: true,
    created_at: now,
    updated_at: now,
  };
  try {
    await own(deps).Conversion.create(doc);
  } catch (e) {
    // A concurrent report of the same order won the unique _id: answer with its conversion.
    if ((e as { code?: number }).code !== 11000) throw e;
    return { created: false, conversion: (await own(deps).Conversion.findById(id).lean<ConversionRecord>())! };
  }
  await deps.data.conversions.conversionChanged(doc.publisher_id);
  return { created: true, conversion: (await own(deps).Conversion.findById(id).lean<ConversionRecord>())! };
}

/** Who an order of the merchant is credited to, if anyone (its conversion's id and publisher). */
export async function saleOfOrder(
  deps: Pick<ConversionsDeps, 'data'>,
  merchantId: number,
  orderId: string,
): Promise<{ id: string; publisher_id: string } | null> {
  const c = await own(deps).Conversion.findById(conversionId(merchantId, orderId), { publisher_id: 1 }).lean<{ _id: string; publisher_id: string }>();
  return c ? { id: c._id, publisher_id: c.publisher_id } : null;
}
