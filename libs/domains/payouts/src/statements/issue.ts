/**
 * Issuing statements (docs/decisions/0058-statements-and-vat.md): one per paid payout, numbered
 * without gaps per publisher and calendar year, exactly once under concurrent or repeated
 * settlement and after a crash; a correction is a new statement naming the one it supersedes.
 *
 * A statement is one document inserted whole (snapshot and PDF) with seq = the year's last + 1.
 * The unique `{publisher_id, year, seq}` sends a writer that lost a race to the next number; the
 * unique `{publisher_id, payout_id, revision}` makes a second issue of the same statement find the
 * first. A number is never taken without its document, so numbers have no gaps.
 */
import { createHash } from 'node:crypto';
import { recordOperatorAct } from '@cw/audit';
import { ApiError } from '@cw/errors';
import { operatorUseCase } from '@cw/usecase';
import type { PayoutsModels } from '../data/payouts.data';
import { own, type PayoutsDeps } from '../deps';
import { renderStatementPdf } from './render';
import { statementContent, type PayoutRow, type StatementSnapshot } from './snapshot';
import type { StatementRow } from './statement.schema';

/** The statement of (payout, revision): `stm_` + the payout's hash, `_r2`… for corrections. */
export const statementIdOf = (payoutId: string, revision: number): string => `stm_${payoutId.replace(/^po_/, '')}${revision > 1 ? `_r${revision}` : ''}`;

/** `YYYY-NNNNNN`. */
export const statementNumber = (year: number, seq: number): string => `${year}-${String(seq).padStart(6, '0')}`;

/** Bytes of a stored Binary (lean reads give a mongodb Binary, not a Buffer). */
export const pdfBytes = (row: Pick<StatementRow, 'pdf'>): Buffer => {
  const pdf = row.pdf as unknown;
  if (Buffer.isBuffer(pdf)) return pdf;
  const inner = (pdf as { buffer: Buffer | Uint8Array }).buffer;
  return Buffer.isBuffer(inner) ? inner : Buffer.from(inner);
};

export interface NumberedKey {
  publisherId: string;
  payoutId: string;
  revision: number;
  /** The issue date: its UTC year is the numbering's year. */
  issuedAt: Date;
}

/** At most this many numbers tried (each a lost race to another statement of the same publisher and year). */
const MAX_ATTEMPTS = 200;

/**
 * Inserts the statement of `key` with the next free number of its publisher and year, built by
 * `make(number)`; or answers the one stored already (the same payout and revision).
 */
export async function insertNumbered(
  models: Pick<PayoutsModels, 'Statement'>,
  key: NumberedKey,
  make: (number: string) => Promise<{ snapshot: unknown; pdf: Buffer }>,
): Promise<StatementRow> {
  const { Statement } = models;
  const year = key.issuedAt.getUTCFullYear();
  const same = { publisher_id: key.publisherId, payout_id: key.payoutId, revision: key.revision };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await Statement.findOne(same).lean<StatementRow>();
    if (existing) return existing;
    const last = await Statement.findOne({ publisher_id: key.publisherId, year }, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>();
    const seq = (last?.seq ?? 0) + 1;
    const number = statementNumber(year, seq);
    const { snapshot, pdf } = await make(number);
    const doc = {
      _id: statementIdOf(key.payoutId, key.revision),
      ...same,
      year,
      seq,
      number,
      supersedes: (snapshot as { supersedes?: string | null }).supersedes ?? null,
      issued_at: key.issuedAt,
      snapshot,
      pdf,
      pdf_sha256: createHash('sha256').update(pdf).digest('hex'),
    };
    try {
      await Statement.create(doc);
      return doc as StatementRow;
    } catch (e) {
      if ((e as { code?: number }).code !== 11000) throw e;
      // Another writer took this number (try the next) or issued this very statement (found above).
    }
  }
  throw new Error(`statements: no free number for ${key.publisherId} in ${year} after ${MAX_ATTEMPTS} attempts`);
}

async function build(
  deps: PayoutsDeps,
  p: PayoutRow,
  number: string,
  supersedes: string | null,
  issuedAt: Date,
  content: Awaited<ReturnType<typeof statementContent>>,
) {
  const snapshot: StatementSnapshot = { number, ...content, supersedes, issued_at: issuedAt.toISOString() };
  return { snapshot, pdf: await renderStatementPdf(snapshot) };
}

/**
 * The statement of a paid payout, issued now when it has none (idempotent: issuing again, or
 * concurrently, answers the same statement). Null when the payout is not paid.
 */
export async function issueStatement(deps: PayoutsDeps, payoutId: string): Promise<StatementRow | null> {
  const m = own(deps);
  const p = await m.Payout.findById(payoutId).lean<PayoutRow>();
  if (!p || p.status !== 'paid') return null;
  const issuedAt = p.paid_at ?? p.created_at;
  let content: Awaited<ReturnType<typeof statementContent>> | undefined;
  const row = await insertNumbered(m, { publisherId: p.publisher_id, payoutId: p._id, revision: 1, issuedAt }, async (number) => {
    content ??= await statementContent(deps, p);
    return build(deps, p, number, null, issuedAt, content);
  });
  // The payout names its statement (a crash before this is repaired by issuing again).
  if (!p.statement) await m.Payout.updateOne({ _id: p._id, statement: null }, { $set: { statement: { number: row.number } } });
  return row;
}

/** Issues the statement of every paid payout of the run that has none (settling a run again repairs a crash). */
export async function issueMissingStatements(deps: PayoutsDeps, runId: string): Promise<number> {
  let issued = 0;
  for await (const p of own(deps).Payout.find({ run_id: runId, status: 'paid', statement: null }, { _id: 1 }).lean<Array<{ _id: string }>>().cursor()) {
    if (await issueStatement(deps, p._id)) issued++;
  }
  return issued;
}

/** The newest statement of a payout (its correction when there is one), or null. */
export async function latestStatement(deps: Pick<PayoutsDeps, 'data'>, publisherId: string, payoutId: string): Promise<StatementRow | null> {
  return own(deps).Statement.findOne({ publisher_id: publisherId, payout_id: payoutId }).sort({ revision: -1 }).lean<StatementRow>();
}

/**
 * A correction (`statement:reissue --payout ID`, an admin): a new statement of the payout, built
 * from today's data (a corrected tax profile, name or address), numbered in today's year, naming
 * the one it supersedes. Every earlier statement stays as it was; the payout names the new one.
 */
export const operatorReissueStatement = operatorUseCase(
  'admin',
  async function operatorReissueStatement(deps: PayoutsDeps, operator, input: { payoutId: string; now?: Date }) {
    const m = own(deps);
    const p = await m.Payout.findById(input.payoutId).lean<PayoutRow>();
    if (!p) throw new ApiError({ code: 'not_found', detail: `No payout ${input.payoutId}.` });
    if (p.status !== 'paid')
      throw new ApiError({ code: 'statement_not_issued', detail: `Payout ${p._id} is ${p.status}: a statement is issued once it is paid.` });
    const previous = (await latestStatement(deps, p.publisher_id, p._id)) ?? (await issueStatement(deps, p._id));
    if (!previous) throw new ApiError({ code: 'statement_not_issued', detail: `Payout ${p._id} has no statement.` });
    const issuedAt = input.now ?? new Date();
    const content = await statementContent(deps, p);
    const row = await insertNumbered(m, { publisherId: p.publisher_id, payoutId: p._id, revision: previous.revision + 1, issuedAt }, (number) =>
      build(deps, p, number, previous.number, issuedAt, content),
    );
    await m.Payout.updateOne({ _id: p._id, 'statement.number': previous.number }, { $set: { statement: { number: row.number } } });
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'statement_reissued',
      { payout_id: p._id, number: row.number, supersedes: previous.number },
      p.publisher_id,
    );
    return { number: row.number, supersedes: previous.number, payout_id: p._id };
  },
);
