/**
 * The journal: booking a balanced transaction exactly once, and the balances it moves.
 *
 * No multi-document transaction is needed (nor available on a standalone server): a transaction
 * is one document (all its postings), inserted with `pending: true` under an id derived from its
 * cause, so a second booking of the same cause collides and finds the first. The publisher's
 * balance document then counts it once: the change is guarded by the document's `version`, and
 * `recent` remembers the transactions counted, so a writer that lost a race, or a crash between
 * the insert and the count, is repaired by whoever next books or verifies for that publisher
 * (`settle`: every pending transaction counted, then unmarked). Readers add what is still pending
 * in memory, so a balance is always exactly the sum of the journal.
 */
import { createHash } from 'node:crypto';
import { addDecimals, compareDecimals, formatDecimal, minorUnits, parseDecimal, type Dec } from '@cw/money';
import type { LedgerTxn, LedgerType, Posting } from './data/ledger.schema';
import { own } from './deps';

type Deps = Parameters<typeof own>[0];

/** How many counted transaction ids a balance remembers (only the newest can still be pending). */
const RECENT = 200;

export interface NewTxn {
  /** The cause, hashed into the id: `sale:<event id>`, `correction:<conversion id>`, `payout:<payout id>`. */
  key: string;
  publisher_id: string;
  type: LedgerType;
  postings: Posting[];
  conversion_id?: string;
  payout_id?: string;
  event_id?: string;
  reason?: string;
  actor?: string;
  fx?: Array<{ from: string; to: string; rate: string }>;
  created_at?: Date;
}

/** The transaction id of a cause: the same cause, the same id. */
export const txnId = (publisherId: string, key: string): string =>
  `ltx_${createHash('sha256').update(`${publisherId}\u0000${key}`).digest('base64url').slice(0, 24)}`;

/** Where a transaction does not balance (undefined: every currency's postings sum to zero). */
export function unbalanced(postings: Posting[]): string | undefined {
  if (!postings.length) return 'a transaction needs postings';
  const byCurrency = new Map<string, string[]>();
  for (const p of postings) byCurrency.set(p.currency, [...(byCurrency.get(p.currency) ?? []), p.amount]);
  for (const [currency, amounts] of byCurrency) {
    const sum = addDecimals(amounts);
    if (compareDecimals(sum, '0') !== 0) return `${currency} postings sum to ${formatDecimal(sum, Math.max(sum.scale, 2))}, not 0`;
  }
  return undefined;
}

/** Amounts go to mongoose as decimal strings: it casts them to Decimal128 exactly. */
const toStored = (p: Posting) => ({ account: p.account, currency: p.currency, amount: p.amount });

/** Reads a stored transaction with its amounts as strings. */
const fromStored = (t: Record<string, unknown>): LedgerTxn => {
  const postings = (t.postings as Array<{ account: Posting['account']; currency: string; amount: { toString(): string } }>).map((p) => ({
    account: p.account,
    currency: p.currency,
    amount: p.amount.toString(),
  }));
  return { ...(t as unknown as LedgerTxn), postings };
};

/**
 * Books a transaction once: `created` false when its cause was booked before (nothing changes).
 * Throws when it does not balance (a programming error, never a client's input).
 */
export async function book(deps: Deps, t: NewTxn): Promise<{ txn: LedgerTxn; created: boolean }> {
  const problem = unbalanced(t.postings);
  if (problem) throw new Error(`ledger: unbalanced ${t.type} for ${t.publisher_id}: ${problem}`);
  const m = own(deps);
  const _id = txnId(t.publisher_id, t.key);
  const doc = {
    _id,
    publisher_id: t.publisher_id,
    type: t.type,
    postings: t.postings.map(toStored),
    ...(t.conversion_id ? { conversion_id: t.conversion_id } : {}),
    ...(t.payout_id ? { payout_id: t.payout_id } : {}),
    ...(t.event_id ? { event_id: t.event_id } : {}),
    ...(t.reason ? { reason: t.reason } : {}),
    ...(t.actor ? { actor: t.actor } : {}),
    ...(t.fx?.length ? { fx: t.fx } : {}),
    created_at: t.created_at ?? new Date(),
    pending: true,
  };
  let created = true;
  try {
    await m.LedgerTxn.create(doc);
  } catch (e) {
    if ((e as { code?: number }).code !== 11000) throw e;
    created = false;
  }
  await settle(deps, t.publisher_id);
  const stored = await m.LedgerTxn.findOne({ publisher_id: t.publisher_id, _id }).lean();
  return { txn: fromStored(stored as Record<string, unknown>), created };
}

interface BalanceRow {
  _id: string;
  version: number;
  balances: Array<{ currency: string; amount: { toString(): string } }>;
  entries: number;
  recent: string[];
}

/** The balance with `txns` added (publisher postings only). */
function added(balances: Map<string, Dec>, txns: LedgerTxn[]): Map<string, Dec> {
  const out = new Map(balances);
  for (const t of txns)
    for (const p of t.postings) if (p.account === 'publisher') out.set(p.currency, addDecimals([out.get(p.currency) ?? parseDecimal('0'), p.amount]));
  return out;
}

const balanceMap = (row: BalanceRow | null): Map<string, Dec> => new Map((row?.balances ?? []).map((b) => [b.currency, parseDecimal(b.amount.toString())]));

/** Counts the transaction into its publisher's balance once (a no-op when it is counted already). */
async function count(deps: Deps, txn: LedgerTxn): Promise<void> {
  const m = own(deps);
  for (;;) {
    const row = await m.LedgerBalance.findById(txn.publisher_id).lean<BalanceRow>();
    if (row?.recent.includes(txn._id)) break;
    const balances = [...added(balanceMap(row), [txn])].map(([currency, d]) => ({
      currency,
      amount: formatDecimal(d, Math.max(d.scale, minorUnits(currency))),
    }));
    const next = { balances, entries: (row?.entries ?? 0) + 1, recent: [...(row?.recent ?? []), txn._id].slice(-RECENT), updated_at: new Date() };
    if (!row) {
      try {
        await m.LedgerBalance.create({ _id: txn.publisher_id, version: 1, ...next });
        break;
      } catch (e) {
        if ((e as { code?: number }).code !== 11000) throw e;
        continue; // another writer created it: count against theirs
      }
    }
    const r = await m.LedgerBalance.updateOne({ _id: txn.publisher_id, version: row.version }, { $set: { ...next, version: row.version + 1 } });
    if (r.modifiedCount === 1) break;
  }
  await m.LedgerTxn.updateOne({ publisher_id: txn.publisher_id, _id: txn._id }, { $unset: { pending: '' } });
}

/** Counts every transaction of the publisher not counted yet, oldest first. */
export async function settle(deps: Deps, publisherId: string): Promise<number> {
  const pending = await own(deps).LedgerTxn.find({ publisher_id: publisherId, pending: true }).sort({ created_at: 1, _id: 1 }).lean();
  for (const t of pending) await count(deps, fromStored(t as Record<string, unknown>));
  return pending.length;
}

/** The publisher's balance per currency, exact: the counted sum and any transaction not yet counted. */
export async function balancesOf(deps: Deps, publisherId: string): Promise<Array<{ currency: string; amount: string }>> {
  const m = own(deps);
  const row = await m.LedgerBalance.findById(publisherId).lean<BalanceRow>();
  const pending = (await m.LedgerTxn.find({ publisher_id: publisherId, pending: true }).lean()).map((t) => fromStored(t as Record<string, unknown>));
  const uncounted = pending.filter((t) => !row?.recent.includes(t._id));
  return [...added(balanceMap(row), uncounted)]
    .map(([currency, d]) => ({ currency, amount: formatDecimal(d, Math.max(d.scale, minorUnits(currency))) }))
    .sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

export { fromStored as ledgerTxnFromStored };
