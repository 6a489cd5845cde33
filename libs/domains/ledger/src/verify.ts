/**
 * `ledger:verify`: every transaction balances (its postings sum to zero in each currency) and every
 * publisher's stored balance equals the sum of its entries. Reads the journal once, in the order of
 * its shard key's index, keeping one running sum per publisher and currency.
 */
import { addDecimals, compareDecimals, formatDecimal, parseDecimal, type Dec } from '@cw/money';
import { balancesOf, ledgerTxnFromStored, unbalanced } from './journal';
import { own, type LedgerDeps } from './deps';

export interface LedgerVerification {
  entries: number;
  transactions: number;
  publishers: number;
  problems: string[];
  balanced: boolean;
}

export async function verifyLedger(
  deps: Pick<LedgerDeps, 'data'>,
  opts: { onProgress?: (transactions: number) => void; maxProblems?: number } = {},
): Promise<LedgerVerification> {
  const problems: string[] = [];
  const max = opts.maxProblems ?? 100;
  const note = (p: string) => void (problems.length < max && problems.push(p));
  const sums = new Map<string, Map<string, Dec>>();
  let entries = 0;
  let transactions = 0;
  const cursor = own(deps).LedgerTxn.find({}).sort({ publisher_id: 1, _id: 1 }).lean().cursor({ batchSize: 1000 });
  for await (const raw of cursor) {
    const t = ledgerTxnFromStored(raw as Record<string, unknown>);
    transactions++;
    entries += t.postings.length;
    const problem = unbalanced(t.postings);
    if (problem) note(`${t._id} (${t.type}, ${t.publisher_id}): ${problem}`);
    let mine = sums.get(t.publisher_id);
    if (!mine) sums.set(t.publisher_id, (mine = new Map()));
    for (const p of t.postings) if (p.account === 'publisher') mine.set(p.currency, addDecimals([mine.get(p.currency) ?? parseDecimal('0'), p.amount]));
    if (opts.onProgress && transactions % 100_000 === 0) opts.onProgress(transactions);
  }
  const stored = await own(deps).LedgerBalance.find({}, { _id: 1 }).lean<Array<{ _id: string }>>();
  const publishers = new Set([...sums.keys(), ...stored.map((s) => s._id)]);
  for (const publisherId of publishers) {
    const want = sums.get(publisherId) ?? new Map<string, Dec>();
    const have = new Map((await balancesOf(deps, publisherId)).map((b) => [b.currency, b.amount]));
    for (const currency of new Set([...want.keys(), ...have.keys()])) {
      const w = want.get(currency) ?? parseDecimal('0');
      const h = have.get(currency) ?? '0';
      if (compareDecimals(w, h) !== 0) note(`${publisherId} ${currency}: balance ${h}, entries sum to ${formatDecimal(w, Math.max(w.scale, 2))}`);
    }
  }
  return { entries, transactions, publishers: publishers.size, problems, balanced: problems.length === 0 };
}
