/**
 * Clicks counted by the worker (docs/decisions/0049-clicks-counted-by-the-worker.md), on a real
 * database: a tracker batch is only stored; a counting round takes every stored batch together;
 * rounds racing each other count each click once; a group whose counter died half-way is finished
 * batch by batch, still exactly once. The oracle is the increments of all the clicks counted at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, insertManyTolerant, migrateIndexes, type Database } from '@cw/db';
import { conversionsDomain } from '@cw/conversions';
import { keyRing } from '@cw/config';
import { ClickIds, clickRecord, linksDomain, type ClickRow } from '@cw/links';
import { clickIncrements, countStoredClicks, recoverClickBatches, storeClicks } from './counting';
import { statsDomain } from './data/stats.data';
import type { StatsDeps } from './deps';
import { applyIncrements, newTxnId, TXN_LEASE_MS } from './writer';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';

let engine: TestEngine;
let db: Database;
let deps: Pick<StatsDeps, 'data'>;
let models: ReturnType<typeof statsDomain.open>['models'];
let links: ReturnType<typeof linksDomain.open>['handle'];
let linkModels: ReturnType<typeof linksDomain.open>['models'];

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri);
  const stats = statsDomain.open(db.connection);
  const linksData = linksDomain.open(db.connection);
  const conversions = conversionsDomain.open(db.connection);
  for (const m of [stats.models, linksData.models, conversions.models]) await migrateIndexes(m);
  models = stats.models;
  links = linksData.handle;
  linkModels = linksData.models;
  deps = { data: { stats: stats.handle, links, conversions: conversions.handle } } as unknown as Pick<StatsDeps, 'data'>;
});
afterAll(async () => {
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

const ids = new ClickIds(keyRing(Buffer.alloc(32, 1)));
const key = Buffer.alloc(32, 2);
let made = 0;

/** A tracker-shaped batch: `n` clicks of `publisher` over a few links, sub-IDs and minutes, some bots. */
function batch(publisher: string, n: number): ClickRow[] {
  return Array.from({ length: n }, () => {
    const i = made++;
    const l = i % 7;
    return clickRecord(
      { linkId: `Lk${publisher}${l}`, publisherId: publisher, programId: 1001 + (l % 3), merchantId: 501 + (l % 3), subid: `s${i % 5}` },
      {
        userAgent: i % 11 ? 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' : 'curl/8.5',
        referrer: '',
        ip: `198.51.100.${i % 200}`,
        rates: undefined,
        overIpLimit: false,
      },
      ids,
      key,
    );
  }).map((c, i) => ({ ...c, created_at: new Date(Date.UTC(2026, 10, 20, 10, i % 50)) }));
}

const store = (clicks: ClickRow[]) => storeClicks(deps, clicks, (rows, txn) => links.insertClickRows(rows, txn));

/** Every counter the oracle's cells hold, read back from the stored cells (0 where missing). */
async function countsOf(clicks: ClickRow[]): Promise<{ expected: Record<string, number>; stored: Record<string, number> }> {
  const expected: Record<string, number> = {};
  const stored: Record<string, number> = {};
  const incs = clickIncrements(clicks);
  const cells = new Map((await models.Stat.find({ _id: { $in: incs.map((c) => c.id) } }).lean()).map((c) => [String(c._id), c as Record<string, unknown>]));
  for (const c of incs)
    for (const [path, n] of Object.entries(c.counts)) {
      expected[`${c.id} ${path}`] = n;
      const value = path.split('.').reduce<unknown>((v, p) => (v as Record<string, unknown> | undefined)?.[p], cells.get(c.id));
      stored[`${c.id} ${path}`] = Number(value ?? 0);
    }
  return { expected, stored };
}

describe('clicks counted by the worker', () => {
  it('a stored batch is not counted until a round counts every stored batch together', async () => {
    const clicks = [batch('pubA', 300), batch('pubA', 300), batch('pubB', 200)];
    for (const b of clicks) expect((await store(b)).stored).toBe(b.length);
    const before = await countsOf(clicks.flat());
    expect(Object.values(before.stored).every((n) => n === 0)).toBe(true);
    expect(await models.StatTxn.countDocuments({ kind: 'clicks', stored: true })).toBe(3);

    expect(await countStoredClicks(deps)).toBe(800);
    const after = await countsOf(clicks.flat());
    expect(after.stored).toEqual(after.expected);
    expect(await models.StatTxn.countDocuments({ kind: 'clicks' })).toBe(0);
    // No transaction id is left in the cells.
    expect(await models.Stat.countDocuments({ 'txns.0': { $exists: true } })).toBe(0);
    expect(await countStoredClicks(deps)).toBe(0);
  });

  it("counts a batch stored as buckets from their columns, and one of the previous version's rows by id, in one round", async () => {
    const current = batch('pubG', 250);
    const previous = batch('pubG', 150);
    const { txnId } = await store(current);
    // Marked: its clicks are exactly its buckets.
    expect(await models.StatTxn.findById(txnId).lean()).toMatchObject({ buckets: true, click_ids: links.batchIds(current) });
    // The previous version: one row per click under the transaction, which names every click.
    const rows = (list: ClickRow[], txn: string) =>
      insertManyTolerant(linkModels.Click.collection, list.map((r) => ({ ...r, stats_txn: txn })) as never[]).then((r) => r.inserted);
    const old = await storeClicks(deps, previous, rows, (list) => list.map((c) => c._id));
    expect((await models.StatTxn.findById(old.txnId).lean())?.buckets).toBeUndefined();

    expect(await countStoredClicks(deps)).toBe(400);
    const { expected, stored } = await countsOf([...current, ...previous]);
    expect(stored).toEqual(expected);
  });

  it('rounds racing each other count each click once', async () => {
    const clicks = Array.from({ length: 24 }, (_, i) => batch(`pubR${i % 3}`, 50));
    for (const b of clicks) await store(b);
    const counted = await Promise.all([countStoredClicks(deps), countStoredClicks(deps), countStoredClicks(deps)]);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(24 * 50);
    const { expected, stored } = await countsOf(clicks.flat());
    expect(stored).toEqual(expected);
  });

  it('a group whose counter died half-way is finished batch by batch once its lease has passed, nothing twice', async () => {
    const clicks = [batch('pubC', 120), batch('pubC', 80), batch('pubD', 60)];
    const txns: string[] = [];
    for (const b of clicks) txns.push((await store(b)).txnId!);
    // A counter claims the three batches, applies their sum to half the cells, then dies.
    const owner = newTxnId();
    await models.StatTxn.updateMany({ _id: { $in: txns } }, { $set: { owner, lease_until: new Date(Date.now() + TXN_LEASE_MS) } });
    const incs = clickIncrements(clicks.flat());
    await applyIncrements(deps, txns, incs.slice(0, Math.ceil(incs.length / 2)));
    // Claimed: a round does not take them, and before the lease has passed nothing recovers them.
    expect(await countStoredClicks(deps)).toBe(0);
    expect(await recoverClickBatches(deps)).toBe(0);
    // After it: each batch alone, on the cells the group did not reach.
    expect(await recoverClickBatches(deps, new Date(Date.now() + 2 * TXN_LEASE_MS))).toBe(260);
    const { expected, stored } = await countsOf(clicks.flat());
    expect(stored).toEqual(expected);
    expect(await models.StatTxn.countDocuments({ _id: { $in: txns } })).toBe(0);
  });

  it('a stored batch past its lease is left to the recovery alone: no round groups it', async () => {
    const clicks = batch('pubF', 70);
    const { txnId } = await store(clicks);
    await models.StatTxn.updateOne({ _id: txnId }, { $set: { lease_until: new Date(Date.now() - 1) } });
    expect(await countStoredClicks(deps)).toBe(0);
    expect(await recoverClickBatches(deps)).toBe(70);
    const { expected, stored } = await countsOf(clicks);
    expect(stored).toEqual(expected);
  });

  it('a batch whose writer died before it was all stored waits for its lease, then its stored clicks are counted', async () => {
    const clicks = batch('pubE', 90);
    // The writer stores the transaction and part of the clicks, then dies (never marks it stored).
    await expect(
      storeClicks(deps, clicks, async (rows, txn) => {
        await links.insertClickRows(rows.slice(0, 40), txn);
        throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    expect(await countStoredClicks(deps)).toBe(0);
    expect(await recoverClickBatches(deps, new Date(Date.now() + 2 * TXN_LEASE_MS))).toBe(40);
    const { expected, stored } = await countsOf(clicks.slice(0, 40));
    expect(stored).toEqual(expected);
  });
});
