/**
 * Missing-sale inquiries as their publisher files and reads them (`POST /inquiries/`, `GET
 * /inquiries/`, `GET /inquiries/{id}`, the MCP tools, the portal's "Missing sales"). Not the
 * instant-monetization claim (@cw/monetize): an inquiry asks a merchant to credit one order.
 */
import { createHash } from 'node:crypto';
import { WRITERS, type Policy, type Principal } from '@cw/auth';
import { saleOfOrder } from '@cw/conversions';
import { ApiError } from '@cw/errors';
import { compareDecimals, formatDecimal, minorUnits, parseDecimal } from '@cw/money';
import { pageWindow, useCase, type InputOf, type ListSort } from '@cw/usecase';
import type { InquiryRecord } from './data/inquiry.schema';
import { own, type InquiriesDeps } from './deps';
import { gatherEvidence } from './evidence';
import { DEFAULT_RESPONSE_DAYS, FILE_INQUIRY_INPUT, INQUIRY_ID_INPUT, INQUIRY_MAX_AGE_DAYS, LIST_INQUIRIES_INPUT } from './inquiry.schemas';

const DAY = 86_400_000;
/** Clocks differ: an order up to this far in the future is taken as now-ish (as the intake does). */
const SKEW_MS = 5 * 60_000;

const KEY_RULES = { refuseKinds: ['test', 'sandbox', 'read_only'], refuseDetail: 'Test, sandbox and read-only keys cannot use inquiries.' } as const;
export const INQUIRIES_READ_POLICY: Policy = { budget: 'links', ...KEY_RULES, scope: 'links:write' };
export const INQUIRY_FILE_POLICY: Policy = { budget: 'links', ...KEY_RULES, refuseDemoAccounts: true, roles: WRITERS, scope: 'links:write' };

/** The one view of an inquiry (its publisher's, and the merchant's: no publisher identity in it). */
export function inquiryView(i: InquiryRecord) {
  return {
    id: i._id,
    status: i.status,
    program_id: i.program_id,
    order_id: i.order_id,
    occurred_at: i.occurred_at,
    amount: formatDecimal(parseDecimal(i.amount.toString()), minorUnits(i.currency)),
    currency: i.currency,
    click_id: i.click_id ?? null,
    note: i.note ?? null,
    evidence: { clicks: i.evidence.clicks.map((c) => ({ click_id: c.click_id, clicked_at: c.clicked_at, verified: c.verified })) },
    respond_by: i.respond_by,
    reason: i.reason ?? null,
    conflict: i.conflict ?? null,
    conversion_id: i.conversion_id ?? null,
    decided_by: i.decided_by ?? null,
    decided_at: i.decided_at ?? null,
    created_at: i.created_at,
    updated_at: i.updated_at,
  };
}
export type InquiryView = ReturnType<typeof inquiryView>;

/** One inquiry per (publisher, merchant, order id): filing the same order again answers the first. */
export const inquiryId = (publisherId: string, merchantId: number, orderId: string) =>
  `inq_${createHash('sha256').update(`${publisherId}\u0000${merchantId}\u0000${orderId}`).digest('base64url').slice(0, 22)}`;

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

/** The rules of an inquiry's order that need no data: its time (not in the future, not older than the limit) and its amount (positive, the currency's decimals). */
export function checkInquiryOrder(input: { occurred_at: string; amount: string; currency: string }, now: Date): Date {
  const at = new Date(input.occurred_at);
  if (at.getTime() > now.getTime() + SKEW_MS) throw invalid('occurred_at', 'must not be in the future');
  if (at.getTime() < now.getTime() - INQUIRY_MAX_AGE_DAYS * DAY) throw invalid('occurred_at', `must be within the last ${INQUIRY_MAX_AGE_DAYS} days`);
  if (compareDecimals(input.amount, '0') <= 0) throw invalid('amount', 'must be greater than 0');
  const units = minorUnits(input.currency);
  if (parseDecimal(input.amount).scale > units) throw invalid('amount', `has more decimals than ${input.currency} allows (${units})`);
  return at;
}

export interface FiledInquiry {
  /** False when the same order was filed before by this account: the first inquiry, unchanged. */
  created: boolean;
  inquiry: InquiryView;
}

export const fileInquiry = useCase(
  INQUIRY_FILE_POLICY,
  async function fileInquiry(
    deps: InquiriesDeps,
    principal: Principal,
    input: InputOf<typeof FILE_INQUIRY_INPUT>,
    now: Date = new Date(),
  ): Promise<FiledInquiry> {
    const publisherId = principal.publisher._id;
    const occurredAt = checkInquiryOrder(input, now);
    const program = await deps.data.programs.byId(input.program_id, { merchant_id: 1, cookie_days: 1, inquiry_response_days: 1 });
    if (!program)
      throw new ApiError({
        code: 'not_found',
        detail: `Program ${input.program_id} does not exist.`,
        errors: [{ param: 'program_id', detail: 'no such program' }],
      });
    if (!(await deps.data.programs.approvedIds(publisherId)).includes(input.program_id))
      throw new ApiError({
        code: 'program_not_approved',
        detail: `You are not approved for program ${input.program_id}: inquiries are for programs you promote.`,
        errors: [{ param: 'program_id', detail: 'not approved for this program' }],
      });
    const id = inquiryId(publisherId, program.merchant_id, input.order_id);
    const existing = await own(deps).Inquiry.findById(id).lean<InquiryRecord>();
    if (existing) return { created: false, inquiry: inquiryView(existing) };
    const credited = await saleOfOrder(deps, program.merchant_id, input.order_id);
    if (credited?.publisher_id === publisherId)
      throw new ApiError({
        code: 'order_already_credited',
        detail: `Order ${input.order_id} is already credited to you (conversion ${credited.id}).`,
        errors: [{ param: 'order_id', detail: 'already credited to you' }],
      });
    const evidence = await gatherEvidence(deps, { publisherId, program: { ...program, _id: input.program_id }, occurredAt, clickId: input.click_id });
    const responseDays = program.inquiry_response_days ?? DEFAULT_RESPONSE_DAYS;
    const doc = {
      _id: id,
      publisher_id: publisherId,
      program_id: input.program_id,
      merchant_id: program.merchant_id,
      order_id: input.order_id,
      occurred_at: occurredAt,
      amount: formatDecimal(parseDecimal(input.amount), minorUnits(input.currency)),
      currency: input.currency,
      ...(input.click_id ? { click_id: input.click_id } : {}),
      ...(input.note ? { note: input.note } : {}),
      evidence: { clicks: evidence },
      status: 'open' as const,
      respond_by: new Date(now.getTime() + responseDays * DAY),
      events: [],
      created_at: now,
      updated_at: now,
    };
    try {
      await own(deps).Inquiry.create(doc);
    } catch (e) {
      // The same order filed concurrently: the first one stands.
      if ((e as { code?: number }).code !== 11000) throw e;
      return { created: false, inquiry: inquiryView((await own(deps).Inquiry.findById(id).lean<InquiryRecord>())!) };
    }
    return { created: true, inquiry: inquiryView((await own(deps).Inquiry.findById(id).lean<InquiryRecord>())!) };
  },
  FILE_INQUIRY_INPUT,
);

const NEWEST_FIRST: ListSort = [
  ['created_at', -1],
  ['_id', 1],
];

export const listInquiries = useCase(
  INQUIRIES_READ_POLICY,
  async function listInquiries(deps: InquiriesDeps, principal: Principal, input: InputOf<typeof LIST_INQUIRIES_INPUT>) {
    const w = pageWindow({ list: 'inquiries', account: principal.publisher._id, secret: deps.config.secretKey }, NEWEST_FIRST, input);
    const rows = await own(deps)
      .Inquiry.find(w.filter({ publisher_id: principal.publisher._id, ...(input.status ? { status: input.status } : {}) }), { events: 0 })
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<InquiryRecord[]>();
    return w.envelope(rows, (page) => page.map(inquiryView));
  },
  LIST_INQUIRIES_INPUT,
);

const notFound = (id: string) => new ApiError({ code: 'not_found', detail: `No inquiry ${id}.` });
const ID_FORM = /^inq_[A-Za-z0-9_-]{22}$/;

export const getInquiry = useCase(
  INQUIRIES_READ_POLICY,
  async function getInquiry(deps: InquiriesDeps, principal: Principal, input: InputOf<typeof INQUIRY_ID_INPUT>) {
    // Another account's inquiry is not found, like an unknown one.
    const row = ID_FORM.test(input.id) ? await own(deps).Inquiry.findOne({ _id: input.id, publisher_id: principal.publisher._id }).lean<InquiryRecord>() : null;
    if (!row) throw notFound(input.id);
    return inquiryView(row);
  },
  INQUIRY_ID_INPUT,
);

export { ID_FORM as INQUIRY_ID_FORM, NEWEST_FIRST as INQUIRY_LIST_ORDER, notFound as inquiryNotFound };
