/**
 * What the balance and the entries' pages read, whatever the account's history (issue 62): every
 * find the ledger sends for them is captured (mongoose's debug hook sees exactly what is sent) and
 * explained with executionStats. The balance reads its one document and the account's uncounted
 * transactions through the partial index `{publisher_id, pending}` (only pending entries are in
 * it); a page of entries, first or by cursor, reads its rows and the look-ahead row in index order.
 * An account with 5,000 counted entries must read no more than one with none. The same on a real
 * MongoDB when MONGODB_URI is set (its IXSCAN may examine one key past the last, hence the `+ 1`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal128 } from 'bson';
import type { Principal } from '@cw/auth';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { ledgerDomain, type LedgerData } from './data/ledger.data';
import { balancesOf, settle } from './journal';
import { listBalanceTransactions } from './balance.service';

let engine: TestDatabase;
let deps: { data: { ledger: LedgerData }; config: { secretKey: Buffer } };
const sent: Array<{ collection: string; filter: Record<string, unknown>; options: Record<string, unknown> }> = [];

const BIG = 'pub_plans_big';
const OTHER = 'pub_plans_other';
const COUNTED = 5_000;
const PENDING = 3;
const PAGE = 50;

/** `n` transactions of 0.50 EUR, a second apart, `pending` as booked and not yet counted when asked. */
const rows = (publisherId: string, n: number, from: number, pending: boolean) =>
  Array.from({ length: n }, (_, i) => ({
    _id: `ltx_plans_${publisherId}_${pending ? 'p' : 'c'}${from + i}`,
    publisher_id: publisherId,
    type: 'commission',
    postings: [
      { account: 'publisher', currency: 'EUR', amount: Decimal128.fromString('0.50') },
      { account: 'merchant_commission', currency: 'EUR', amount: Decimal128.fromString('-0.50') },
    ],
    created_at: new Date(Date.UTC(2026, 0, 1) + (from + i) * 1000),
    ...(pending ? { pending: true } : {}),
  }));

beforeAll(async () => {
  engine = await startTestDatabase();
  deps = { data: { ledger: await openDomain(engine, ledgerDomain) }, config: { secretKey: Buffer.alloc(32, 7) } };
  const txns = engine.db.connection.collection('ledger_transactions');
  // The big account: its counted history and a few transactions a crash left uncounted; another
  // account's uncounted ones are in the same partial index.
  await txns.insertMany(rows(BIG, COUNTED, 0, false) as never[]);
  await txns.insertMany(rows(BIG, PENDING, COUNTED, true) as never[]);
  await txns.insertMany(rows(OTHER, 40, 0, true) as never[]);
  await engine.db.connection
    .collection('ledger_balances')
    .insertOne({ _id: BIG as never, version: 1, balances: [{ currency: 'EUR', amount: Decimal128.fromString('2500.00') }], entries: COUNTED, recent: [] });
  engine.db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
    if (method === 'find' || method === 'findOne')
      sent.push({ collection, filter: args[0] as Record<string, unknown>, options: (args[1] ?? {}) as Record<string, unknown> });
  });
}, 120_000);
afterAll(() => engine?.stop());

interface PlanStage {
  stage: string;
  indexName?: string;
  inputStage?: PlanStage;
  inputStages?: PlanStage[];
}
const stages = (s: PlanStage | undefined): PlanStage[] => (s ? [s, ...stages(s.inputStage), ...(s.inputStages ?? []).flatMap(stages)] : []);

/** Each find `run` sends, explained as sent (after `restore`, which puts back the state `run` read). */
async function explainReads(run: () => Promise<unknown>, restore?: () => Promise<unknown>) {
  sent.length = 0;
  await run();
  const reads = [...sent];
  await restore?.();
  const out = [];
  for (const find of reads) {
    const { sort, skip, limit } = find.options as { sort?: Record<string, number>; skip?: number; limit?: number };
    const explained = await engine.db.connection.db!.command({
      explain: { find: find.collection, filter: find.filter, ...(sort ? { sort } : {}), ...(skip ? { skip } : {}), ...(limit ? { limit } : {}) },
      verbosity: 'executionStats',
    });
    const plan = stages(explained.queryPlanner.winningPlan as PlanStage);
    const stats = explained.executionStats as { totalKeysExamined: number; totalDocsExamined: number; nReturned: number };
    out.push({ collection: find.collection, filter: find.filter, plan, stats });
  }
  return out;
}

const principal = (publisherId: string): Principal =>
  ({
    publisher: { _id: publisherId, name: publisherId, status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() },
    credentialId: 'key_plans',
    prefix: 'plans',
    type: 'api_key',
    keyKind: 'live',
  }) as unknown as Principal;

describe('the balance reads what is not counted yet, never the history', () => {
  it('reads the balance document and the pending transactions through the partial index', async () => {
    const reads = await explainReads(async () => expect(await balancesOf(deps, BIG)).toEqual([{ currency: 'EUR', amount: '2501.50' }]));
    expect(reads.map((r) => r.collection)).toEqual(['ledger_balances', 'ledger_transactions']);
    const [balance, pending] = reads;
    expect(balance!.stats.totalDocsExamined).toBe(1);
    expect(pending!.filter).toMatchObject({ publisher_id: BIG, pending: true });
    expect(pending!.plan.map((s) => s.stage)).not.toContain('COLLSCAN');
    expect(pending!.plan.find((s) => s.stage === 'IXSCAN')?.indexName).toBe('publisher_id_1_pending_1');
    expect(pending!.stats.nReturned).toBe(PENDING);
    expect(pending!.stats.totalKeysExamined).toBeLessThanOrEqual(PENDING + 1);
    expect(pending!.stats.totalDocsExamined).toBe(PENDING);
  });

  it('settles an account reading only its pending transactions, not its history', async () => {
    // Explained as the account was when it settled: its transactions pending again.
    const txns = engine.db.connection.collection('ledger_transactions');
    const ids = rows(BIG, PENDING, COUNTED, true).map((r) => r._id);
    const reads = await explainReads(
      async () => expect(await settle(deps, BIG)).toBe(PENDING),
      () => txns.updateMany({ _id: { $in: ids } } as never, { $set: { pending: true } }),
    );
    await settle(deps, BIG);
    const pending = reads.find((r) => r.collection === 'ledger_transactions' && (r.filter as { pending?: unknown }).pending === true)!;
    expect(pending.plan.map((s) => s.stage)).not.toContain('COLLSCAN');
    expect(pending.stats.totalKeysExamined).toBeLessThanOrEqual(PENDING + 1);
    expect(pending.stats.totalDocsExamined).toBe(PENDING);
    // Counted now: the account's next balance reads none of them, and says the same.
    const after = await explainReads(async () => expect(await balancesOf(deps, BIG)).toEqual([{ currency: 'EUR', amount: '2501.50' }]));
    expect(after[1]!.stats.totalKeysExamined).toBeLessThanOrEqual(1);
    expect(after[1]!.stats.totalDocsExamined).toBe(0);
  });
});

describe("the entries' pages read their rows only", () => {
  it('reads the first page and a deep page by cursor in index order, examining the page and its look-ahead row', async () => {
    let cursor: string | null = null;
    for (let page = 1; page <= 40; page++) {
      const reads = await explainReads(async () => {
        const r = await listBalanceTransactions(deps as never, principal(BIG), { page: 1, page_size: PAGE, ...(cursor ? { cursor } : {}) });
        expect(r.data).toHaveLength(PAGE);
        cursor = r.next_cursor;
      });
      if (page !== 1 && page !== 40) continue;
      const [read] = reads;
      expect(reads).toHaveLength(1);
      expect(
        read!.plan.map((s) => s.stage),
        `page ${page}`,
      ).not.toContain('SORT');
      expect(
        read!.plan.map((s) => s.stage),
        `page ${page}`,
      ).not.toContain('COLLSCAN');
      expect(read!.stats.nReturned).toBe(PAGE + 1);
      // The row at the cursor's position is examined and passed over.
      expect(read!.stats.totalDocsExamined, `page ${page}`).toBeLessThanOrEqual(PAGE + 2);
      expect(read!.stats.totalKeysExamined, `page ${page}`).toBeLessThanOrEqual(PAGE + 3);
    }
  });
});
