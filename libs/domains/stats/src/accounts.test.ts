/**
 * The accounts the batch jobs walk (./accounts.ts), on the embedded engine: listed in id order page
 * by page (no reply holds more than a page, where one `distinct` reply failed past MongoDB's 16 MB
 * at about 500,000 accounts), going on after a given account; the same listing seeds the worker's
 * roll-up backfill and walks `stats:rollups`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandSucceededEvent } from 'mongodb';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';
import { conversionsDomain } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import { linksDomain } from '@cw/links';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';
import { accountsWithCells, accountsWithRows } from './accounts';
import { cellId, type View } from './cells';
import { statsDomain } from './data/stats.data';
import type { StatsDeps } from './deps';
import { backfillRollups, rollupBackfillState } from './rollup-backfill';
import { buildStatsRollups } from './rollups';

let engine: TestEngine;
let db: Database;
let deps: Pick<StatsDeps, 'data'>;
/** The aggregations' first batches, as the driver received them (command monitoring). */
const replies: Array<{ collection: string; batch: number }> = [];

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri, { monitorCommands: true });
  db.connection.getClient().on('commandSucceeded', (e: CommandSucceededEvent) => {
    if (e.commandName !== 'aggregate') return;
    const cursor = (e.reply as { cursor?: { ns: string; firstBatch: unknown[] } }).cursor;
    if (cursor) replies.push({ collection: cursor.ns.split('.').slice(1).join('.'), batch: cursor.firstBatch.length });
  });
  const opened = [conversionsDomain, statsDomain, eventsFeedDomain, linksDomain].map((d) => d.open(db.connection));
  for (const o of opened) await migrateIndexes(o.models);
  const [conversions, stats, eventsFeed, links] = opened.map((o) => o.handle);
  deps = { data: { conversions, stats, eventsFeed, links } } as unknown as Pick<StatsDeps, 'data'>;
});
afterAll(async () => {
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

const collect = async (list: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const id of list) out.push(id);
  return out;
};

/** Empty cells of an account: its account-view months, and day and sub-ID cells beside them. */
async function cellsOf(publisherId: string, months: number): Promise<void> {
  const docs = [];
  for (let i = 0; i < months; i++)
    for (const [v, g] of [
      ['a', 'm'],
      ['a', 'd'],
      ['s', 'm'],
    ] as Array<[View, 'd' | 'm']>) {
      const dims = { publisher_id: publisherId, v, g, t: new Date(Date.UTC(2026, i, 1)), program_id: null, campaign_id: null, subid: v === 's' ? 'fb' : null };
      docs.push({ _id: cellId(dims), ...dims, fv: 3 });
    }
  await db.connection.collection('stats').insertMany(docs as never);
}

describe('the accounts the stats batch jobs walk', () => {
  // Out of order, several months each (several cells of one account must list it once).
  const withCells = ['pub_c3', 'pub_a1', 'pub_f6', 'pub_b2', 'pub_e5', 'pub_d4', 'pub_g7'];
  const sorted = [...withCells].sort();

  beforeAll(async () => {
    for (const [i, p] of withCells.entries()) await cellsOf(p, 1 + (i % 3));
  });

  it('lists every account with cells once, in id order, no reply holding more than a page', async () => {
    replies.length = 0;
    expect(await collect(accountsWithCells(deps, { pageSize: 2 }))).toEqual(sorted);
    const pages = replies.filter((r) => r.collection === 'stats');
    expect(pages.map((p) => p.batch)).toEqual([2, 2, 2, 1]);
    // A page size the accounts fill exactly: one more page, empty, says the listing is over.
    replies.length = 0;
    expect(await collect(accountsWithCells(deps, { pageSize: 7 }))).toEqual(sorted);
    expect(replies.map((p) => p.batch)).toEqual([7, 0]);
  });

  it('goes on after a given account (a stopped run), whether or not that account still has cells', async () => {
    expect(await collect(accountsWithCells(deps, { pageSize: 2, after: 'pub_c3' }))).toEqual(['pub_d4', 'pub_e5', 'pub_f6', 'pub_g7']);
    expect(await collect(accountsWithCells(deps, { pageSize: 3, after: 'pub_c' }))).toEqual(['pub_c3', 'pub_d4', 'pub_e5', 'pub_f6', 'pub_g7']);
    expect(await collect(accountsWithCells(deps, { after: 'pub_g7' }))).toEqual([]);
  });

  it('lists the accounts with conversions or clicks (rows, buckets) as one ordered list, each once', async () => {
    await db.connection.collection('conversions').insertMany([
      { _id: 'cnv_1', publisher_id: 'pub_r2' },
      { _id: 'cnv_2', publisher_id: 'pub_r5' },
      { _id: 'cnv_3', publisher_id: 'pub_r2' },
      { _id: 'cnv_4', publisher_id: 'pub_r1' },
    ] as never);
    await db.connection.collection('clicks').insertMany([
      { _id: 'clk_1', publisher_id: 'pub_r3' },
      { _id: 'clk_2', publisher_id: 'pub_r5' },
    ] as never);
    await db.connection.collection('click_buckets').insertMany([
      { _id: 'clk_3', publisher_id: 'pub_r4' },
      { _id: 'clk_4', publisher_id: 'pub_r1' },
      { _id: 'clk_5', publisher_id: 'pub_r6' },
    ] as never);
    const all = ['pub_r1', 'pub_r2', 'pub_r3', 'pub_r4', 'pub_r5', 'pub_r6'];
    expect(await collect(accountsWithRows(deps, { pageSize: 1 }))).toEqual(all);
    expect(await collect(accountsWithRows(deps, { pageSize: 2, after: 'pub_r2' }))).toEqual(all.slice(2));
  });

  it('seeds the worker backfill and walks stats:rollups page by page', async () => {
    // Pages of 2: every account with cells is listed for the backfill.
    await backfillRollups(deps, { listingPageSize: 2 });
    expect((await rollupBackfillState(deps)).accounts).toBe(withCells.length);
    // stats:rollups after an account: the accounts after it.
    const months: string[] = [];
    const r = await buildStatsRollups(deps, { listing: { pageSize: 2, after: 'pub_d4' }, onProgress: (p) => months.push(p.publisher) });
    expect(r.accounts).toBe(3);
    expect([...new Set(months)]).toEqual(['pub_e5', 'pub_f6', 'pub_g7']);
  });
});
