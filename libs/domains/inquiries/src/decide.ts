/**
 * Deciding an inquiry: the program's merchant (tracking API), an operator (audited), or, once the
 * response window has passed unanswered, the window's job. Accepting creates the conversion
 * through the sales core's own path (`recordAttributedSale`: the intake's id per (merchant, order
 * id), commission, event and flags) with channel `inquiry`; an order already credited to anyone
 * is 409 `order_already_credited`, and the inquiry shows the conflict. A decision stands: a
 * decided inquiry is 409 `invalid_transition`. Each decision pushes its event
 * (`inquiry.accepted` / `inquiry.rejected`) with the status, in one update guarded by `open`.
 */
import { randomBytes } from 'node:crypto';
import { recordAttributedSale, type SaleAttribution } from '@cw/conversions';
import { ApiError } from '@cw/errors';
import { readClickId } from '@cw/links';
import { pageWindow, type InputOf } from '@cw/usecase';
import type { Decider, InquiryRecord, RejectReason } from './data/inquiry.schema';
import { own, type InquiriesDeps } from './deps';
import { INQUIRY_ID_FORM, INQUIRY_LIST_ORDER, inquiryNotFound, inquiryView } from './inquiries.service';
import type { LIST_INQUIRIES_INPUT } from './inquiry.schemas';

/** How long one decision may hold an inquiry (a process that died holding it frees it after this). */
const DECIDING_MS = 60_000;

export type Decision = { accept: true } | { accept: false; reason: RejectReason };

const decidedAlready = (i: InquiryRecord) =>
  new ApiError({ code: 'invalid_transition', detail: `Inquiry ${i._id} is ${i.status} already: a decision stands.` });

/** Who gets the sale: the newest verified click of the evidence (its link's sub-ID), else the program alone. */
async function attributionOf(deps: InquiriesDeps, i: InquiryRecord): Promise<SaleAttribution> {
  const base = { publisher_id: i.publisher_id, program_id: i.program_id, campaign_id: i.merchant_id };
  const click = i.evidence.clicks.find((c) => c.verified);
  const claims = click ? readClickId(deps.config.keys, click.click_id) : undefined;
  const link = claims ? await deps.data.links.byCode(claims.linkId) : null;
  if (!click || !link || link.publisher_id !== i.publisher_id) return base;
  return { ...base, click_id: click.click_id, link_id: link._id, subid: link.subid ?? '' };
}

/**
 * Decides an open inquiry (already scoped to who may decide it). Answers the decided inquiry;
 * throws 409 `order_already_credited` (the inquiry keeps `conflict`, stays open) or
 * `invalid_transition` (decided already, or being decided right now).
 */
export async function decideInquiry(deps: InquiriesDeps, row: InquiryRecord, decision: Decision, by: Decider, now = new Date()): Promise<InquiryRecord> {
  const { Inquiry } = own(deps);
  if (row.status !== 'open') throw decidedAlready(row);
  // Hold it: one decision at a time (the merchant, an operator and the job may meet).
  const held = await Inquiry.findOneAndUpdate(
    { _id: row._id, status: 'open', $or: [{ deciding_until: null }, { deciding_until: { $lte: now } }] },
    { $set: { deciding_until: new Date(now.getTime() + DECIDING_MS) } },
    { returnDocument: 'after' },
  ).lean<InquiryRecord>();
  if (!held) {
    const current = await Inquiry.findById(row._id).lean<InquiryRecord>();
    if (current && current.status !== 'open') throw decidedAlready(current);
    throw new ApiError({ code: 'invalid_transition', detail: `Inquiry ${row._id} is being decided right now.` });
  }
  const release = () => Inquiry.updateOne({ _id: row._id }, { $unset: { deciding_until: '' } });
  let set: Record<string, unknown>;
  try {
    if (decision.accept) {
      const sale = await recordAttributedSale(
        deps,
        held.merchant_id,
        await attributionOf(deps, held),
        { order_id: held.order_id, amount: held.amount.toString(), currency: held.currency, occurred_at: held.occurred_at },
        { channel: 'inquiry', now },
      );
      const c = sale.conversion;
      // Created now, or by this very acceptance before it could be recorded here (a crash in between).
      const ours = sale.created || (c.channel === 'inquiry' && c.publisher_id === held.publisher_id && c.program_id === held.program_id);
      if (!ours) {
        await Inquiry.updateOne(
          { _id: row._id, status: 'open' },
          { $set: { conflict: 'order_already_credited', updated_at: now }, $unset: { deciding_until: '' } },
        );
        throw new ApiError({
          code: 'order_already_credited',
          detail: `Order ${held.order_id} is already credited: the inquiry cannot be accepted (reject it as duplicate).`,
        });
      }
      set = { status: 'accepted', conversion_id: c._id };
    } else set = { status: 'rejected', reason: decision.reason };
  } catch (e) {
    await release();
    throw e;
  }
  const type = decision.accept ? 'inquiry.accepted' : 'inquiry.rejected';
  const decided = await Inquiry.findOneAndUpdate(
    { _id: row._id, status: 'open' },
    {
      $set: { ...set, decided_by: by, decided_at: now, updated_at: now, events_pending: true },
      $unset: { deciding_until: '' },
      $push: { events: { _id: `evt_${randomBytes(12).toString('base64url')}`, type, created_at: now } },
    },
    { returnDocument: 'after' },
  ).lean<InquiryRecord>();
  if (!decided) throw decidedAlready((await Inquiry.findById(row._id).lean<InquiryRecord>()) ?? row);
  // Its listeners (the owners' mail, wired by the composition root) hear of it; their failure is not the decision's.
  await deps.data.inquiries.decided({ kind: 'inquiry_decided', publisherId: decided.publisher_id, inquiry: decided });
  return decided;
}

/** The merchant's inquiry (another merchant's is not found, like an unknown one). */
async function merchantsInquiry(deps: InquiriesDeps, merchantId: number, id: string): Promise<InquiryRecord> {
  const row = INQUIRY_ID_FORM.test(id) ? await own(deps).Inquiry.findOne({ _id: id, merchant_id: merchantId }, { events: 0 }).lean<InquiryRecord>() : null;
  if (!row) throw inquiryNotFound(id);
  return row;
}

/** Inquiries on the merchant's programs, newest first (`GET /api/v1/track/inquiries/`). */
export async function merchantListInquiries(deps: InquiriesDeps, merchantId: number, input: InputOf<typeof LIST_INQUIRIES_INPUT>) {
  const w = pageWindow({ list: 'merchant-inquiries', account: `merchant:${merchantId}`, secret: deps.config.secretKey }, INQUIRY_LIST_ORDER, input);
  const rows = await own(deps)
    .Inquiry.find(w.filter({ merchant_id: merchantId, ...(input.status ? { status: input.status } : {}) }), { events: 0 })
    .sort(w.sort)
    .skip(w.skip)
    .limit(input.page_size + 1)
    .lean<InquiryRecord[]>();
  return w.envelope(rows, (page) => page.map(inquiryView));
}

export async function merchantGetInquiry(deps: InquiriesDeps, merchantId: number, id: string) {
  return inquiryView(await merchantsInquiry(deps, merchantId, id));
}

/** The merchant accepts: the sale is credited to the inquiry's publisher (channel `inquiry`). */
export async function merchantAcceptInquiry(deps: InquiriesDeps, merchantId: number, id: string, now = new Date()) {
  return inquiryView(await decideInquiry(deps, await merchantsInquiry(deps, merchantId, id), { accept: true }, 'merchant', now));
}

export async function merchantRejectInquiry(deps: InquiriesDeps, merchantId: number, id: string, reason: RejectReason, now = new Date()) {
  return inquiryView(await decideInquiry(deps, await merchantsInquiry(deps, merchantId, id), { accept: false, reason }, 'merchant', now));
}

/**
 * Whether one of the inquiry's verified clicks is listed verified by no other accepted inquiry of
 * its publisher. Unanswered, a click the platform vouches for backs one order: a publisher with one
 * real click cannot file any number of made-up orders and have the window accept them all.
 */
async function vouchesAlone(deps: InquiriesDeps, row: InquiryRecord, clickIds: string[]): Promise<boolean> {
  const others = await own(deps)
    .Inquiry.find(
      {
        publisher_id: row.publisher_id,
        status: 'accepted',
        _id: { $ne: row._id },
        'evidence.clicks': { $elemMatch: { click_id: { $in: clickIds }, verified: true } },
      },
      { 'evidence.clicks': 1 },
    )
    .lean<Array<Pick<InquiryRecord, 'evidence'>>>();
  const used = new Set(others.flatMap((o) => o.evidence.clicks.filter((c) => c.verified).map((c) => c.click_id)));
  return clickIds.some((id) => !used.has(id));
}

/**
 * The response window's job: open inquiries past `respond_by` are decided on their evidence,
 * at most `limit` a pass, oldest deadline first: accepted when it holds a verified click, else
 * rejected `outside_window` (no click of the publisher's in the program's cookie window before
 * the order that the platform can vouch for), or `other` when every verified click of it backs
 * another accepted inquiry already (`vouchesAlone`). An order credited meanwhile is rejected `duplicate`.
 */
export async function decideOverdueInquiries(deps: InquiriesDeps, now = new Date(), limit = 200): Promise<{ accepted: number; rejected: number }> {
  const due = await own(deps)
    .Inquiry.find({ status: 'open', respond_by: { $lte: now } }, { events: 0 })
    .sort({ respond_by: 1 })
    .limit(limit)
    .lean<InquiryRecord[]>();
  const out = { accepted: 0, rejected: 0 };
  for (const row of due) {
    const verified = row.evidence.clicks.filter((c) => c.verified).map((c) => c.click_id);
    const decision: Decision = !verified.length
      ? { accept: false, reason: 'outside_window' }
      : (await vouchesAlone(deps, row, verified))
        ? { accept: true }
        : { accept: false, reason: 'other' };
    try {
      const d = await decideInquiry(deps, row, decision, 'window', now);
      out[d.status === 'accepted' ? 'accepted' : 'rejected']++;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (e.code === 'order_already_credited') {
        await decideInquiry(deps, row, { accept: false, reason: 'duplicate' }, 'window', now);
        out.rejected++;
      }
      // invalid_transition: someone else decided it meanwhile.
    }
  }
  return out;
}
