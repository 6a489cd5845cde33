/**
 * The conversion lifecycle, the one place statuses change. A merchant reports a sale on a click
 * (created `pending`); the merchant or an operator approves or declines it; an approved sale can
 * be reversed (declined). Each change and its event are one atomic single-document update (the
 * event is pushed into the conversion with the new status, guarded by the old status), so no
 * event is lost or doubled, even under concurrent changes; the same update flags the conversion for
 * the events log (`log_pending`, @cw/events-feed), its only flag. The log's consumers (the stats
 * read model, the postbacks, the ledger) read the change from it, each from its own checkpoint
 * (docs/decisions/0070-sale-event-consumers.md); the write then hands the account to the data's port (`conversionChanged`: its events
 * appended and counted at once, docs/decisions/0046-stats-read-contract.md; this module never
 * imports the stats model). Ledger entries (bonuses, corrections) are booked approved and emit no
 * sale event (the stats count them as not counted yet: no `stats_key`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { currentTraceparent } from '@cw/telemetry';
import { ApiError } from '@cw/errors';
import type { MerchantPrincipal } from '@cw/auth';
import { readClickId } from '@cw/links';
import type { ConversionRecord, ConversionStatus, SaleEventType } from './data/conversion.schema';
import { addDecimals, compareDecimals, formatDecimal, isCurrency, minorUnits, multiplyDecimals, parseDecimal, roundDecimal } from '@cw/money';
import type { InputOf } from '@cw/usecase';
import type { INTAKE_INPUT } from './conversion.schemas';
import { own, type ConversionsDeps } from './deps';

const DAY = 86_400_000;

/**
 * A new sale event. With tracing on, it keeps the W3C traceparent of the span that changed the
 * conversion, so its postback delivery is a span of that request's trace (libs/domains/postbacks).
 */
export const saleEvent = (type: SaleEventType, at: Date) => {
  const traceparent = currentTraceparent();
  return { _id: `evt_${randomBytes(12).toString('base64url')}`, type, created_at: at, published_at: null, ...(traceparent ? { traceparent } : {}) };
};

/** When a reported sale happened: `occurred_at`, else now; not in the future (5 minutes of clock skew allowed). */
export function saleTime(occurredAt: string | undefined, now: Date): Date {
  const at = occurredAt ? new Date(occurredAt) : now;
  if (at.getTime() > now.getTime() + 5 * 60_000) throw invalid('occurred_at', 'must not be in the future');
  return at;
}

/** The conversion id of a merchant's order: the same order always maps to one id (dedupe). */
export function conversionId(merchantId: number, orderId: string): string {
  return `cnv_${createHash('sha256').update(`${merchantId}\u0000${orderId}`).digest('base64url').slice(0, 22)}`;
}

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

/**
 * Commission from the program's terms: a rate of the sale, or a fixed amount per sale (in the
 * program's currency), exact and rounded half-even to the currency's minor unit.
 */
export function commissionFor(
  terms: { commission_rate?: { toString(): string } | null; commission_fixed?: { toString(): string } | null; currency?: string | null },
  amount: string,
  currency: string,
): string {
  const units = minorUnits(currency);
  if (terms.commission_fixed !== undefined && terms.commission_fixed !== null) {
    if (terms.currency && terms.currency !== currency)
      throw invalid('currency', `must be the program's currency (${terms.currency}): its commission is a fixed amount per sale`);
    return formatDecimal(roundDecimal(parseDecimal(terms.commission_fixed.toString()), units), units);
  }
  const rate = terms.commission_rate ? terms.commission_rate.toString() : '0';
  return formatDecimal(roundDecimal(multiplyDecimals(amount, rate), units), units);
}

export interface RecordedSale {
  /** False when the same (merchant, order) was reported before: nothing changed. */
  created: boolean;
  conversion: ConversionRecord;
}

/**
 * A merchant reports a sale on one of its clicks: 201 once per (merchant, order id), then the same
 * conversion (the intake's click path: ./intake.ts).
 */
export async function recordClickSale(
  deps: ConversionsDeps,
  merchant: MerchantPrincipal,
  input: InputOf<typeof INTAKE_INPUT> & { click_id: string },
  now = new Date(),
): Promise<RecordedSale> {
  if (!isCurrency(input.currency)) throw invalid('currency', `"${input.currency}" is not an ISO 4217 currency`);
  const units = minorUnits(input.currency);
  const amount = parseDecimal(input.amount);
  if (amount.scale > units) throw invalid('amount', `has more decimals than ${input.currency} allows (${units})`);
  const occurredAt = saleTime(input.occurred_at, now);
  const id = conversionId(merchant.merchantId, input.order_id);
  const existing = await own(deps).Conversion.findById(id).lean<ConversionRecord>();
  if (existing) return { created: false, conversion: existing };

  const click = await attributionOf(deps, input.click_id);
  // Another merchant's click is indistinguishable from an unknown one.
  if (!click || click.campaign_id !== merchant.merchantId)
    throw new ApiError({ code: 'click_not_found', detail: `No click ${input.click_id} on your programs.` });
  if (click.is_bot) throw new ApiError({ code: 'click_is_bot', detail: 'The click was flagged as automated traffic and does not convert.' });
  const program = await deps.data.programs.byId(click.program_id, { cookie_days: 1, commission_rate: 1, commission_fixed: 1, currency: 1 });
  const windowDays = program?.cookie_days ?? 30;
  if (occurredAt.getTime() - click.created_at.getTime() > windowDays * DAY) {
    throw new ApiError({ code: 'click_expired', detail: `The click is older than the program's ${windowDays}-day cookie window at the time of the sale.` });
  }
  if (occurredAt.getTime() < click.created_at.getTime()) throw invalid('occurred_at', 'is before the click');
  const commission = commissionFor(program ?? {}, input.amount, input.currency);
  const doc = {
    _id: id,
    publisher_id: click.publisher_id,
    program_id: click.program_id,
    campaign_id: click.campaign_id,
    click_id: input.click_id,
    link_id: click.link_id,
    channel: 'link' as const,
    subid: click.subid ?? '',
    order_ref: input.order_id,
    status: 'pending' as const,
    sale_amount: formatDecimal(amount, units),
    commission,
    currency: input.currency,
    occurred_at: occurredAt,
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

interface Attribution {
  publisher_id: string;
  program_id: number;
  campaign_id: number;
  link_id: string;
  subid?: string;
  created_at: Date;
  is_bot: boolean;
}

/**
 * What a click attributes a sale to. A signed click id (every click since they were introduced)
 * carries its link and time, so the sale needs no click row: it converts the moment the redirect
 * answered, on any tracker instance, and after a crash lost the tracker's click buffer. Other ids
 * (older clicks, demo data) are looked up as stored.
 */
async function attributionOf(deps: ConversionsDeps, clickId: string): Promise<Attribution | null> {
  const claims = readClickId(deps.config.keys, clickId);
  if (!claims) return deps.data.links.clickById(clickId) as Promise<Attribution | null>;
  if (claims.preview) return null;
  const link = await deps.data.links.byCode(claims.linkId);
  if (!link) return null;
  return { ...link, link_id: link._id, created_at: claims.at, is_bot: claims.isBot };
}

const TRANSITIONS: Record<ConversionStatus, Partial<Record<ConversionStatus, SaleEventType>>> = {
  pending: { approved: 'sale.approved', declined: 'sale.declined' },
  approved: { declined: 'sale.reversed' },
  declined: {},
};

/**
 * Changes a conversion's status (pending to approved or declined; approved to declined is a
 * reversal) and records its event, atomically. `merchantId` limits it to that merchant's
 * conversions (another merchant's are not found); `onlyFrom` narrows the allowed origin
 * (the operator's `reverse` is only from approved).
 */
export async function changeStatus(
  deps: Pick<ConversionsDeps, 'data'>,
  id: string,
  to: 'approved' | 'declined',
  opts: { merchantId?: number; onlyFrom?: ConversionStatus; now?: Date } = {},
): Promise<ConversionRecord> {
  const now = opts.now ?? new Date();
  const scope: Record<string, unknown> = { _id: id, source: 'v1', ...(opts.merchantId !== undefined ? { campaign_id: opts.merchantId } : {}) };
  const current = await own(deps).Conversion.findOne(scope).lean<ConversionRecord>();
  if (!current) throw new ApiError({ code: 'not_found', detail: `No conversion ${id}.` });
  const event = TRANSITIONS[current.status][to];
  if (!event || (opts.onlyFrom && current.status !== opts.onlyFrom)) {
    throw new ApiError({
      code: 'invalid_transition',
      detail: `A ${current.reversed ? 'reversed' : current.status} conversion cannot become ${to}${opts.onlyFrom ? ` (only ${opts.onlyFrom} ones)` : ''}.`,
    });
  }
  const updated = await own(deps)
    .Conversion.findOneAndUpdate(
      { ...scope, status: current.status },
      {
        $set: { status: to, updated_at: now, log_pending: true, ...(event === 'sale.reversed' ? { reversed: true } : {}) },
        $push: { events: saleEvent(event, now) },
      },
      { returnDocument: 'after' },
    )
    .lean<ConversionRecord>();
  // Someone else changed it between the read and the write: judge again against the new status.
  if (!updated) return changeStatus(deps, id, to, opts);
  await deps.data.conversions.conversionChanged(updated.publisher_id);
  return updated;
}

/** A bonus or correction the network books for a publisher (approved at once, positive or negative). */
export async function bookLedgerEntry(
  deps: Pick<ConversionsDeps, 'data'>,
  entry: { publisherId: string; amount: string; currency: string; reason: string; programId?: number; merchantId?: number; now?: Date },
): Promise<ConversionRecord> {
  if (!isCurrency(entry.currency)) throw invalid('currency', `"${entry.currency}" is not an ISO 4217 currency`);
  if (!/^-?[0-9]{1,12}(\.[0-9]{1,4})?$/.test(entry.amount) || compareDecimals(entry.amount, '0') === 0)
    throw invalid('amount', 'must be a non-zero decimal amount');
  if (!entry.reason.trim()) throw invalid('reason', 'is required');
  if (!(await deps.data.auth.publisherExists(entry.publisherId)))
    throw new ApiError({ code: 'not_found', detail: `publisher ${entry.publisherId} does not exist` });
  const now = entry.now ?? new Date();
  const units = minorUnits(entry.currency);
  const id = `cnv_L${randomBytes(12).toString('base64url')}`;
  await own(deps).Conversion.create({
    _id: id,
    publisher_id: entry.publisherId,
    program_id: entry.programId,
    campaign_id: entry.merchantId,
    subid: '',
    reason: entry.reason.trim(),
    status: 'approved',
    sale_amount: '0',
    commission: formatDecimal(roundDecimal(addDecimals([entry.amount]), units), units),
    currency: entry.currency,
    occurred_at: now,
    source: 'ledger',
    // The ledger books it as a correction (its pass unsets this).
    ledger_pending: true,
    created_at: now,
    updated_at: now,
  });
  await deps.data.conversions.conversionChanged(entry.publisherId);
  return (await own(deps).Conversion.findById(id).lean<ConversionRecord>())!;
}
