/**
 * Payout runs (DESIGN.md "Money out"): one admin creates a run of every publisher due, another
 * approves it (four eyes), approval books each payout in the ledger, the approved run exports one
 * file per rail, and the bank's answer settles it.
 *
 * Exactly once: a payout's id derives from (run, publisher, currency); approval books each payout
 * under the key `payout:<id>` and moves it pending -> in_transit only from pending, so approving
 * again, or after a crash mid-way, books nothing twice and finishes the rest (the run reads
 * `approving` until it is whole). Settling moves in_transit -> paid or failed; a failed payout's
 * return is booked under `payout_return:<id>` before its status changes, so settling again, or
 * after a crash, credits it once. A reversal racing a payout is in the balance the payout read,
 * or netted from the next one (the balance may go negative).
 */
import { createHash, randomBytes } from 'node:crypto';
import { recordOperatorAct } from '@cw/audit';
import { ApiError } from '@cw/errors';
import { balancesOf, book, type Posting } from '@cw/ledger';
import { addDecimals, compareDecimals, formatDecimal, minorUnits } from '@cw/money';
import { operatorUseCase } from '@cw/usecase';
import type { HoldReason, PayoutStatus, Rail } from './data/payouts.schema';
import { convert } from './fx/convert';
import type { EcbRates } from './fx/ecb-rates';
import { latestRates } from './fx.service';
import { maskedMethod, openPayoutMethod, type StoredPayoutMethod } from './methods/seal-payout-method';
import { paypalPayoutsFiles } from './rails/paypal-payouts';
import { payoutsCsv } from './rails/payouts-csv';
import { paymentResults, parsePain002 } from './rails/pain002';
import { parseResultsCsv } from './rails/results-csv';
import { sandboxBankReport } from './rails/sandbox-bank';
import { sepaCreditTransfer } from './rails/sepa-credit-transfer';
import type { PaymentResult } from './rails/status-reasons';
import { methodHoldUntil, profileOf, type ProfileRow } from './settings.service';
import { issueMissingStatements, issueStatement } from './statements/issue';
import { taxProfileIncomplete } from './tax/tax.service';
import { own, type PayoutsDeps } from './deps';

type Deps = PayoutsDeps;

/** The payout of (run, publisher, currency): hex, so it is a SEPA reference and a PayPal id as it is. */
export const payoutIdOf = (runId: string, publisherId: string, currency: string): string =>
  `po_${createHash('sha256').update(`${runId}\u0000${publisherId}\u0000${currency}`).digest('hex').slice(0, 24)}`;

const newRunId = (now: Date) => `prun_${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`;

export const railOf = (method: Pick<StoredPayoutMethod, 'type'>, currency: string): Rail =>
  method.type === 'paypal' ? 'paypal' : method.type === 'iban' && currency === 'EUR' ? 'sepa' : 'csv';

export interface PayoutRow {
  _id: string;
  run_id: string;
  publisher_id: string;
  status: PayoutStatus;
  amount: { toString(): string };
  currency: string;
  rail: Rail;
  method: { type: string; last4: string };
  method_fingerprint?: string;
  method_sealed?: StoredPayoutMethod;
  sources: Array<{ currency: string; amount: string }>;
  /** What each source converted to, in the payout's currency (same order). */
  converted: Array<{ currency: string; amount: string }>;
  fx: Array<{ from: string; to: string; rate: string; date: string }>;
  holds: HoldReason[];
  failure: { code: string; message: string } | null;
  statement: { number: string } | null;
  created_at: Date;
  approved_at?: Date;
  paid_at?: Date;
  failed_at?: Date;
}

export interface RunRow {
  _id: string;
  kind: 'scheduled' | 'request';
  status: 'draft' | 'approving' | 'approved' | 'settled';
  created_by: string;
  /** Set while the schedule fills the run (openScheduledRun); approval waits for it. */
  opening?: boolean;
  created_at: Date;
  approved_by?: string;
  approved_at?: Date;
  exported_at?: Date;
  settled_at?: Date;
  totals: Array<{ currency: string; rail: string; count: number; amount: string }>;
  held: number;
}

export interface Due {
  amount: string;
  currency: string;
  sources: Array<{ currency: string; amount: string }>;
  fx: Array<{ from: string; to: string; rate: string; date: string }>;
  /** What each source converts to (the payout's currency). */
  converted: Array<{ currency: string; amount: string }>;
  holds: HoldReason[];
}

/**
 * What the publisher would be paid now: every balance converted to the payout currency at the
 * newest ECB rates (a currency without a rate stays for a later payout), and why it would wait.
 */
export async function dueNow(
  deps: Deps,
  publisherId: string,
  profile: Awaited<ReturnType<typeof profileOf>>,
  rates: EcbRates | null,
  now = new Date(),
): Promise<Due> {
  const to = profile.currency;
  const sources: Due['sources'] = [];
  const converted: Due['converted'] = [];
  const fx: Due['fx'] = [];
  for (const b of await balancesOf(deps, publisherId)) {
    if (compareDecimals(b.amount, '0') === 0) continue;
    if (b.currency === to) {
      sources.push(b);
      converted.push(b);
      continue;
    }
    if (!rates) continue;
    try {
      const c = convert(b.amount, b.currency, to, rates);
      sources.push(b);
      converted.push({ currency: to, amount: c.amount });
      fx.push({ from: b.currency, to, rate: c.rate, date: c.date });
    } catch {
      // No rate for this currency: it waits for a later payout.
    }
  }
  const sum = addDecimals(converted.map((c) => c.amount));
  const holds: HoldReason[] = [];
  const row = profile.row as ProfileRow | null;
  if (methodHoldUntil(deps, row, now)) holds.push('method_changed');
  if (row?.method?.failed_at) holds.push('method_failed');
  if (row?.method && (await own(deps).PayoutProfile.exists({ 'method.fingerprint': row.method.fingerprint, _id: { $ne: publisherId } })))
    holds.push('shared_account');
  const publisher = await deps.data.auth.publisherById(publisherId);
  if (!publisher || publisher.status !== 'active') holds.push('account_inactive');
  if (taxProfileIncomplete(deps, row)) holds.push('tax_profile_incomplete');
  return { amount: formatDecimal(sum, minorUnits(to)), currency: to, sources, fx, converted, holds };
}

/** A payout of the publisher that is not finished with yet (in a run not approved, or held). */
const openPayout = (deps: Deps, publisherId: string) => own(deps).Payout.exists({ publisher_id: publisherId, status: { $in: ['pending', 'held'] } });

/** Adds the publisher's payout to the run when due (answers it), or nothing. */
export async function addPayout(
  deps: Deps,
  runId: string,
  publisherId: string,
  rates: EcbRates | null,
  opts: { request?: boolean; now?: Date } = {},
): Promise<PayoutRow | null> {
  const now = opts.now ?? new Date();
  const profile = await profileOf(deps, publisherId);
  const method = profile.row?.method;
  if (!method || (await openPayout(deps, publisherId))) return null;
  const due = await dueNow(deps, publisherId, profile, rates, now);
  if (compareDecimals(due.amount, profile.threshold) < 0 || compareDecimals(due.amount, '0') <= 0) return null;
  const doc = {
    _id: payoutIdOf(runId, publisherId, due.currency),
    run_id: runId,
    publisher_id: publisherId,
    status: (due.holds.length ? 'held' : 'pending') as PayoutStatus,
    amount: due.amount,
    currency: due.currency,
    rail: railOf(method, due.currency),
    method: maskedMethod(method),
    method_fingerprint: method.fingerprint,
    method_sealed: { type: method.type, last4: method.last4, fingerprint: method.fingerprint, sealed: method.sealed },
    sources: due.sources,
    converted: due.converted,
    fx: due.fx,
    holds: due.holds,
    failure: null,
    statement: null,
    created_at: now,
    updated_at: now,
  };
  try {
    await own(deps).Payout.create(doc);
  } catch (e) {
    if ((e as { code?: number }).code !== 11000) throw e;
  }
  return own(deps).Payout.findById(doc._id).lean<PayoutRow>();
}

/** The run's totals by currency and rail (pending and in transit), and how many are held. */
async function runTotals(deps: Deps, runId: string): Promise<Pick<RunRow, 'totals' | 'held'>> {
  const totals = new Map<string, { currency: string; rail: string; amounts: string[] }>();
  let held = 0;
  for await (const p of own(deps).Payout.find({ run_id: runId }, { status: 1, currency: 1, rail: 1, amount: 1 }).lean<PayoutRow[]>().cursor()) {
    if (p.status === 'held') held++;
    if (p.status === 'held' || p.status === 'canceled') continue;
    const k = `${p.currency}|${p.rail}`;
    const t = totals.get(k) ?? { currency: p.currency, rail: p.rail, amounts: [] };
    t.amounts.push(p.amount.toString());
    totals.set(k, t);
  }
  return {
    held,
    totals: [...totals.values()].map((t) => ({
      currency: t.currency,
      rail: t.rail,
      count: t.amounts.length,
      amount: formatDecimal(addDecimals(t.amounts), minorUnits(t.currency)),
    })),
  };
}

async function refreshTotals(deps: Deps, runId: string) {
  await own(deps).PayoutRun.updateOne({ _id: runId }, { $set: await runTotals(deps, runId) });
}

/** Adds every publisher on the monthly schedule due now to a draft run (each payout once: its id is the run's, the publisher's and the currency's). */
async function fillRun(deps: Deps, runId: string, now: Date): Promise<RunRow> {
  const rates = await latestRates(deps);
  const profiles = own(deps)
    .PayoutProfile.find({ method: { $ne: null }, schedule: 'monthly' }, { _id: 1 })
    .lean<Array<{ _id: string }>>()
    .cursor();
  for await (const p of profiles) await addPayout(deps, runId, p._id, rates, { now });
  await refreshTotals(deps, runId);
  return runById(deps, runId);
}

/** A run with every publisher due now (monthly schedule; a publisher with a payout still open is left for the next). */
export const operatorCreatePayoutRun = operatorUseCase('admin', async function operatorCreatePayoutRun(deps: Deps, operator, input: { now?: Date } = {}) {
  const now = input.now ?? new Date();
  const runId = newRunId(now);
  await own(deps).PayoutRun.create({ _id: runId, kind: 'scheduled', status: 'draft', created_by: operator.email, created_at: now });
  const run = await fillRun(deps, runId, now);
  await recordOperatorAct(deps.data.audit, operator, 'payout_run_created', { run_id: runId, totals: run.totals, held: run.held });
  return run;
});

/** The day of the month (UTC) the scheduled job opens the month's payout run. */
export const SCHEDULED_RUN_DAY = 15;
/** Who a run the schedule opened was created by (so any admin approves it: four eyes are the scheduler's and the approver's). */
export const SCHEDULER = 'scheduler';
/** The acting principal of the schedule in the audit log. */
const SCHEDULER_OPERATOR = { type: 'operator', email: SCHEDULER, role: 'admin' } as const;

/** The run the schedule opens in a month (`YYYY-MM`, UTC): one per month, whoever opens it. */
export const scheduledRunIdOf = (month: string): string => `prun_m${month.replace('-', '')}`;

/**
 * The worker's `payouts:scheduled-run` job (docs/decisions/0055): from the SCHEDULED_RUN_DAY of
 * each month (UTC), opens that month's run of every publisher due, as an operator's
 * `payout-run:create` would; admins approve it as any run. Its id is the month's, so a pass run
 * again, by another worker or after a crash, opens nothing twice: a run left `opening` by a crash
 * is filled by the next pass (its payouts are found by their ids; two passes at once both fill
 * it, each payout once). Returns the run when this pass filled it, or null (not the day yet, or
 * the month's run already open).
 */
export async function openScheduledRun(deps: Deps, now: Date = new Date()): Promise<RunRow | null> {
  if (now.getUTCDate() < SCHEDULED_RUN_DAY) return null;
  const runId = scheduledRunIdOf(now.toISOString().slice(0, 7));
  try {
    await own(deps).PayoutRun.create({ _id: runId, kind: 'scheduled', status: 'draft', created_by: SCHEDULER, created_at: now, opening: true });
  } catch (e) {
    if ((e as { code?: number }).code !== 11000) throw e;
  }
  const claimed = await own(deps).PayoutRun.findOne({ _id: runId, opening: true }, { _id: 1 }).lean();
  if (!claimed) return null;
  await fillRun(deps, runId, now);
  const opened = await own(deps).PayoutRun.updateOne({ _id: runId, opening: true }, { $unset: { opening: 1 } });
  const run = await runById(deps, runId);
  if (opened.modifiedCount)
    await recordOperatorAct(deps.data.audit, SCHEDULER_OPERATOR, 'payout_run_created', { run_id: runId, totals: run.totals, held: run.held, scheduled: true });
  return run;
}

async function runById(deps: Deps, runId: string): Promise<RunRow> {
  const run = await own(deps).PayoutRun.findById(runId).lean<RunRow>();
  if (!run) throw new ApiError({ code: 'not_found', detail: `No payout run ${runId}.` });
  return run;
}

/** The ledger transaction of a payout: each balance it pays taken from the publisher, converted where it must be. */
export function payoutPostings(p: Pick<PayoutRow, 'currency' | 'sources' | 'fx' | 'amount'>, converted?: Due['converted']): Posting[] {
  const postings: Posting[] = [];
  const neg = (a: string) => (a.startsWith('-') ? a.slice(1) : `-${a}`);
  p.sources.forEach((s, i) => {
    postings.push({ account: 'publisher', currency: s.currency, amount: neg(s.amount) });
    if (s.currency !== p.currency) {
      const to = converted?.[i]?.amount;
      if (to === undefined) throw new Error('payout postings: a converted source needs its converted amount');
      postings.push({ account: 'fx', currency: s.currency, amount: s.amount }, { account: 'fx', currency: p.currency, amount: neg(to) });
    }
  });
  postings.push({ account: 'payouts', currency: p.currency, amount: p.amount.toString() });
  return postings;
}

/** Books one payout in the ledger and puts it in transit (idempotent). */
async function approvePayout(deps: Deps, p: PayoutRow, operator: string, now: Date): Promise<void> {
  await book(deps, {
    key: `payout:${p._id}`,
    publisher_id: p.publisher_id,
    type: 'payout',
    postings: payoutPostings(p, p.converted),
    payout_id: p._id,
    reason: `Payout ${p._id}`,
    actor: operator,
    fx: p.fx.map((f) => ({ from: f.from, to: f.to, rate: f.rate })),
    created_at: now,
  });
  await own(deps).Payout.updateOne({ _id: p._id, status: 'pending' }, { $set: { status: 'in_transit', approved_at: now, updated_at: now } });
}

/** Approves a run (an admin other than its creator): every pending payout booked and in transit. */
export const operatorApprovePayoutRun = operatorUseCase(
  'admin',
  async function operatorApprovePayoutRun(deps: Deps, operator, input: { runId: string; now?: Date }) {
    const now = input.now ?? new Date();
    const run = await runById(deps, input.runId);
    if (run.created_by === operator.email)
      throw new ApiError({ code: 'forbidden', detail: 'Another admin must approve this run: its creator cannot (four eyes).' });
    if (run.opening)
      throw new ApiError({
        code: 'invalid_transition',
        detail: `Run ${run._id} is still being opened by the schedule; approve it once it lists every publisher due.`,
      });
    if (run.status === 'approved' || run.status === 'settled') return run;
    await own(deps).PayoutRun.updateOne(
      { _id: run._id, status: { $in: ['draft', 'approving'] } },
      { $set: { status: 'approving', approved_by: operator.email } },
    );
    for await (const p of own(deps).Payout.find({ run_id: run._id, status: 'pending' }).lean<PayoutRow[]>().cursor())
      await approvePayout(deps, p, operator.email, now);
    await own(deps).PayoutRun.updateOne({ _id: run._id, status: 'approving' }, { $set: { status: 'approved', approved_at: now } });
    await refreshTotals(deps, run._id);
    const approved = await runById(deps, run._id);
    await recordOperatorAct(deps.data.audit, operator, 'payout_run_approved', { run_id: run._id, totals: approved.totals });
    return approved;
  },
);

export interface RailFile {
  name: string;
  rail: Rail;
  content: string;
}

/** The approved run's files: SEPA credit transfer (EUR bank), PayPal Payouts batch files, a CSV for the rest. The same files every time. */
async function railFiles(deps: Deps, run: RunRow): Promise<{ files: RailFile[]; payouts: PayoutRow[] }> {
  if (run.status !== 'approved' && run.status !== 'settled')
    throw new ApiError({ code: 'invalid_transition', detail: `Run ${run._id} is ${run.status}: approve it before exporting.` });
  const payouts = await own(deps)
    .Payout.find({ run_id: run._id, status: { $in: ['in_transit', 'paid', 'failed'] } })
    .select('+method_sealed')
    .sort({ _id: 1 })
    .lean<PayoutRow[]>();
  const files: RailFile[] = [];
  const at = run.approved_at ?? run.created_at;
  const sepa = payouts.filter((p) => p.rail === 'sepa');
  if (sepa.length) {
    const { payerName, payerIban, payerBic } = deps.config.payouts;
    files.push({
      name: `${run._id}.sepa.xml`,
      rail: 'sepa',
      content: sepaCreditTransfer({
        messageId: run._id,
        createdAt: at,
        debtor: { name: payerName, iban: payerIban, bic: payerBic },
        executionDate: at.toISOString().slice(0, 10),
        payments: sepa.map((p) => {
          const m = openPayoutMethod(deps.config.keys, p.method_sealed!) as { holder_name: string; iban: string; bic: string };
          return { endToEndId: p._id, amount: p.amount.toString(), creditor: { name: m.holder_name, iban: m.iban, bic: m.bic }, remittance: `Payout ${p._id}` };
        }),
      }),
    });
  }
  const paypal = payouts.filter((p) => p.rail === 'paypal');
  if (paypal.length)
    for (const f of paypalPayoutsFiles(
      paypal.map((p) => ({
        payoutId: p._id,
        email: (openPayoutMethod(deps.config.keys, p.method_sealed!) as { email: string }).email,
        amount: p.amount.toString(),
        currency: p.currency,
        note: `Payout ${p._id}`,
      })),
    ))
      files.push({ name: `${run._id}.paypal.${f.currency}.${f.part}.csv`, rail: 'paypal', content: f.csv });
  const rest = payouts.filter((p) => p.rail === 'csv');
  if (rest.length)
    files.push({
      name: `${run._id}.payouts.csv`,
      rail: 'csv',
      content: payoutsCsv(
        rest.map((p) => ({
          payoutId: p._id,
          publisherId: p.publisher_id,
          methodType: p.method.type,
          last4: p.method.last4.slice(-4),
          amount: p.amount.toString(),
          currency: p.currency,
          reference: `Payout ${p._id}`,
        })),
      ),
    });
  return { files, payouts };
}

export const operatorExportPayoutRun = operatorUseCase('admin', async function operatorExportPayoutRun(deps: Deps, operator, input: { runId: string }) {
  const run = await runById(deps, input.runId);
  const { files } = await railFiles(deps, run);
  await own(deps).PayoutRun.updateOne({ _id: run._id, exported_at: { $exists: false } }, { $set: { exported_at: new Date() } });
  await recordOperatorAct(deps.data.audit, operator, 'payout_run_exported', { run_id: run._id, files: files.map((f) => f.name) });
  return files;
});

/**
 * A payout's event as its settling write pushes it (the events feed logs it: ./payout-events.ts).
 * Its id derives from (payout, type): a payout is paid or fails once, so the id is unique and the
 * same however often the row is read.
 */
export const payoutEvent = (payoutId: string, type: 'payout.paid' | 'payout.failed', at: Date) => ({
  _id: `evt_${createHash('sha256').update(`${payoutId}\u0000${type}`).digest('base64url').slice(0, 22)}`,
  type,
  created_at: at,
});

/** Settles one payout from the bank's answer (idempotent: a return is booked once, a status moves once). */
async function settlePayout(deps: Deps, p: PayoutRow, r: PaymentResult, now: Date): Promise<'paid' | 'failed' | null> {
  if (r.status === 'paid') {
    // The status and its event (payout.paid, for the events feed) in one write: a crash leaves neither or both.
    const u = await own(deps).Payout.updateOne(
      { _id: p._id, status: 'in_transit' },
      { $set: { status: 'paid', paid_at: now, updated_at: now, log_pending: true }, $push: { events: payoutEvent(p._id, 'payout.paid', now) } },
    );
    if (!u.modifiedCount) return null;
    // Its self-billing statement, issued once before the owners are told (the paid mail attaches it,
    // loaded by reference when the mail is rendered); a failure here is repaired at the end of this
    // settlement, or the next.
    await issueStatement(deps, p._id).catch(() => null);
    await deps.notify?.({ kind: 'payout_paid', publisherId: p.publisher_id, payoutId: p._id }).catch(() => undefined);
    return 'paid';
  }
  if (r.status !== 'failed' || (p.status !== 'in_transit' && p.status !== 'failed')) return null;
  await book(deps, {
    key: `payout_return:${p._id}`,
    publisher_id: p.publisher_id,
    type: 'payout_return',
    postings: [
      { account: 'publisher', currency: p.currency, amount: p.amount.toString() },
      { account: 'payouts', currency: p.currency, amount: `-${p.amount.toString()}` },
    ],
    payout_id: p._id,
    reason: r.reason ? `Payout returned: ${r.reason.message}` : 'Payout returned',
    actor: 'system',
    created_at: now,
  });
  const failure = { code: r.reason?.code ?? 'failed', message: r.reason?.message ?? 'The bank did not pay it.' };
  const u = await own(deps).Payout.updateOne(
    { _id: p._id, status: 'in_transit' },
    { $set: { status: 'failed', failed_at: now, failure, updated_at: now, log_pending: true }, $push: { events: payoutEvent(p._id, 'payout.failed', now) } },
  );
  if (!u.modifiedCount) return null;
  // The method that failed is flagged (the publisher sets it again; payouts to it are held meanwhile).
  await own(deps).PayoutProfile.updateOne({ _id: p.publisher_id, 'method.fingerprint': p.method_fingerprint }, { $set: { 'method.failed_at': now } });
  await deps.notify?.({ kind: 'payout_failed', publisherId: p.publisher_id, payoutId: p._id }).catch(() => undefined);
  return 'failed';
}

/**
 * Settles an approved run from the bank's status report (`pain.002`), a results CSV
 * (`payout_id,status,reason_code,reason_message`), or the local platform's sandbox bank (every
 * exported payment paid; a creditor named with FAIL refused with AC04).
 */
export const operatorSettlePayoutRun = operatorUseCase(
  'admin',
  async function operatorSettlePayoutRun(deps: Deps, operator, input: { runId: string; file?: string; sandbox?: boolean; now?: Date }) {
    const now = input.now ?? new Date();
    const run = await runById(deps, input.runId);
    const { files, payouts } = await railFiles(deps, run);
    const ids = payouts.map((p) => p._id);
    let results: PaymentResult[];
    if (input.sandbox) {
      results = payouts.filter((p) => p.rail !== 'sepa').map((p) => ({ endToEndId: p._id, status: 'paid' as const }));
      const sepa = files.find((f) => f.rail === 'sepa');
      if (sepa) results.push(...paymentResults(parsePain002(sandboxBankReport(sepa.content, { createdAt: now })), ids));
    } else if (input.file?.trimStart().startsWith('<')) {
      const report = parsePain002(input.file);
      if (report.originalMessageId !== run._id && report.originalMessageId !== run._id.replace(/_/g, '.'))
        throw new ApiError({ code: 'invalid_parameter', detail: `The status report answers message ${report.originalMessageId}, not run ${run._id}.` });
      results = paymentResults(
        report,
        ids.filter((id) => payouts.find((p) => p._id === id)?.rail === 'sepa'),
      );
    } else if (input.file !== undefined) {
      results = parseResultsCsv(input.file);
    } else throw new ApiError({ code: 'invalid_parameter', detail: 'Give the bank status report or results file, or --sandbox.' });
    const byId = new Map(payouts.map((p) => [p._id, p]));
    const counts = { paid: 0, failed: 0, pending: 0, unknown: 0 };
    for (const r of results) {
      const p = byId.get(r.endToEndId);
      if (!p) {
        counts.unknown++;
        continue;
      }
      const done = await settlePayout(deps, p, r, now);
      if (done) counts[done]++;
      else if (r.status === 'pending') counts.pending++;
    }
    // Every paid payout has its statement (one a crash left without gets it now).
    await issueMissingStatements(deps, run._id);
    if (!(await own(deps).Payout.exists({ run_id: run._id, status: 'in_transit' })))
      await own(deps).PayoutRun.updateOne({ _id: run._id, status: 'approved' }, { $set: { status: 'settled', settled_at: now } });
    await recordOperatorAct(deps.data.audit, operator, 'payout_run_settled', { run_id: run._id, ...counts });
    return { run: await runById(deps, run._id), ...counts };
  },
);

/** Releases a held payout (it joins its run: booked at once when the run is approved already) or cancels it. */
export const operatorDecideHold = operatorUseCase(
  'admin',
  async function operatorDecideHold(deps: Deps, operator, input: { payoutId: string; action: 'release' | 'cancel'; now?: Date }) {
    const now = input.now ?? new Date();
    const p = await own(deps).Payout.findOne({ _id: input.payoutId, status: 'held' }).lean<PayoutRow>();
    if (!p) throw new ApiError({ code: 'not_found', detail: `No held payout ${input.payoutId}.` });
    if (input.action === 'cancel') {
      await own(deps).Payout.updateOne({ _id: p._id, status: 'held' }, { $set: { status: 'canceled', updated_at: now } });
      await recordOperatorAct(deps.data.audit, operator, 'payout_canceled', { payout_id: p._id, holds: p.holds }, p.publisher_id);
    } else {
      // Released once the tax profile is there (until then the payee may not be paid at all).
      if (p.holds.includes('tax_profile_incomplete') && taxProfileIncomplete(deps, (await profileOf(deps, p.publisher_id)).row as ProfileRow | null))
        throw new ApiError({
          code: 'tax_profile_incomplete',
          detail: `The payee of ${p._id} has no tax profile yet: release it once they set one (Settings, Tax).`,
        });
      await own(deps).Payout.updateOne({ _id: p._id, status: 'held' }, { $set: { status: 'pending', updated_at: now } });
      const run = await runById(deps, p.run_id);
      if (run.status === 'approved') await approvePayout(deps, { ...p, status: 'pending' }, operator.email, now);
      await recordOperatorAct(deps.data.audit, operator, 'payout_released', { payout_id: p._id, holds: p.holds }, p.publisher_id);
    }
    await refreshTotals(deps, p.run_id);
    return own(deps).Payout.findById(p._id).lean<PayoutRow>();
  },
);

/** Runs, newest first (at most `limit`). */
export const operatorListPayoutRuns = operatorUseCase('support', async function operatorListPayoutRuns(deps: Deps, _operator, input: { limit?: number } = {}) {
  return own(deps)
    .PayoutRun.find({})
    .sort({ created_at: -1, _id: -1 })
    .limit(Math.min(input.limit ?? 50, 500))
    .lean<RunRow[]>();
});

/** One run and its payouts (at most 1,000; the CLI pages by publisher). */
export const operatorPayoutRun = operatorUseCase('support', async function operatorPayoutRun(deps: Deps, _operator, input: { runId: string }) {
  const run = await runById(deps, input.runId);
  const payouts = await own(deps).Payout.find({ run_id: run._id }).sort({ _id: 1 }).limit(1000).lean<PayoutRow[]>();
  return { run, payouts };
});
