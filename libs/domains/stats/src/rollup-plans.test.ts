/**
 * What a range's totals per link (the dashboard's top list) read once the roll-ups are built
 * (issue 67): every find the reader sends is captured (mongoose's debug hook sees what is sent)
 * and explained with executionStats. 90 days of an account with 120 links read at most one
 * roll-up document per UTC month or day of the range by `_id` (never a cell per link and month;
 * their content only once per process, then their build token and write count),
 * and, in a zone whose days do not start at UTC midnight, the day cells of the two edge days
 * only; no collection scan. The full cell scan of the same range reads a cell per link and month.
 * The dashboard's totals and series (the account view, one group) read its month cells and the day
 * cells of the bucket edges off UTC midnight, whatever the account's keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';
import { conversionsDomain } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';
import { zoneCalendar } from './calendar';
import { Increments } from './cells';
import { statsDomain } from './data/stats.data';
import type { StatsDeps } from './deps';
import { readFacts } from './reader';
import { buildStatsRollups } from './rollups';
import { applyIncrements, closeTxn, newTxnId, storedIncs } from './writer';

let engine: TestEngine;
let db: Database;
let deps: Pick<StatsDeps, 'data'>;
const sent: Array<{ collection: string; filter: Record<string, unknown>; options: Record<string, unknown> }> = [];

const BIG = 'pub_rollup_plans';
const LINKS = 120;
const DAYS = 100;
const T0 = Date.parse('2026-01-01T00:00:00Z');

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri);
  const conversions = conversionsDomain.open(db.connection);
  const stats = statsDomain.open(db.connection);
  const eventsFeed = eventsFeedDomain.open(db.connection);
  for (const m of [conversions.models, stats.models, eventsFeed.models]) await migrateIndexes(m);
  deps = { data: { conversions: conversions.handle, stats: stats.handle, eventsFeed: eventsFeed.handle } } as unknown as Pick<StatsDeps, 'data'>;
  // Every link clicked every day (a click at 03:00 and one at 21:00 UTC), a day's clicks in one transaction.
  for (let d = 0; d < DAYS; d++) {
    const incs = new Increments();
    for (let l = 0; l < LINKS; l++) {
      const a = { publisher_id: BIG, program_id: 1000 + (l % 5), campaign_id: 500 + (l % 5), subid: `s${l % 200}`, link_id: `lnk_${l}` };
      incs.clicks(a, T0 + d * 86_400_000 + 3 * 3_600_000);
      incs.clicks(a, T0 + d * 86_400_000 + 21 * 3_600_000);
    }
    const stored = storedIncs(incs.nonZero());
    const txn = newTxnId();
    await applyIncrements(deps, txn, stored);
    await closeTxn(deps, txn, stored);
  }
  await buildStatsRollups(deps, { publisherId: BIG });
  db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
    if (method === 'find' || method === 'findOne')
      sent.push({ collection, filter: args[0] as Record<string, unknown>, options: (args[1] ?? {}) as Record<string, unknown> });
  });
}, 600_000);
afterAll(async () => {
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

interface PlanStage {
  stage: string;
  indexName?: string;
  inputStage?: PlanStage;
  inputStages?: PlanStage[];
}
const stages = (s: PlanStage | undefined): PlanStage[] => (s ? [s, ...stages(s.inputStage), ...(s.inputStages ?? []).flatMap(stages)] : []);

/** Each find `run` sends, explained as sent. */
async function explainReads(run: () => Promise<unknown>) {
  sent.length = 0;
  await run();
  const out = [];
  for (const find of [...sent]) {
    const explained = await db.connection.db!.command({ explain: { find: find.collection, filter: find.filter }, verbosity: 'executionStats' });
    const plan = stages(explained.queryPlanner.winningPlan as PlanStage);
    const stats = explained.executionStats as { totalKeysExamined: number; totalDocsExamined: number; nReturned: number };
    out.push({ collection: find.collection, filter: find.filter, plan, stats });
  }
  return out;
}

const clicksOf = (facts: Awaited<ReturnType<typeof readFacts>>) => facts.reduce((n, f) => n + f.clicks, 0);

describe("a range's totals per link, from the roll-ups", () => {
  it('90 UTC days read one document per whole month and day of the range, by _id, and no cell', async () => {
    const from = Date.parse('2026-01-10T00:00:00Z');
    const to = from + 90 * 86_400_000;
    let clicks = 0;
    const reads = await explainReads(async () => (clicks = clicksOf(await readFacts(deps, { publisherId: BIG, from, to, byLink: true }))));
    expect(clicks).toBe(90 * LINKS * 2);
    // The documents' build tokens and write counts, then (not decoded by this process yet) their content.
    expect(reads.map((r) => r.collection)).toEqual(['stats_rollups', 'stats_rollups']);
    for (const r of reads) {
      // 2026-01-10..04-09: 22 days of January, February and March whole, 9 days of April.
      expect(r.stats.nReturned).toBe(22 + 2 + 9);
      expect(r.stats.totalDocsExamined).toBe(22 + 2 + 9);
      expect(r.plan.map((s) => s.stage)).not.toContain('COLLSCAN');
    }
    expect(sent.map((f) => Object.keys(f.options.projection as object).sort())).toEqual([
      ['_id', 'b', 'ok', 'over', 'w'],
      ['_id', 'b', 'k', 'ok', 'over', 'w'],
    ]);
    // Read again: the tokens and counts only (the content decoded once is the same), the same answer.
    const again = await explainReads(async () => expect(clicksOf(await readFacts(deps, { publisherId: BIG, from, to, byLink: true }))).toBe(clicks));
    expect(again.map((r) => r.collection)).toEqual(['stats_rollups']);
    expect(Object.keys(sent[0]!.options.projection as object)).not.toContain('k');
  });

  it('90 days of Asia/Kathmandu add the day cells of the two edge days only', async () => {
    const calendar = zoneCalendar('Asia/Kathmandu');
    const from = calendar.dayStart('2026-01-10');
    const to = calendar.dayStart('2026-04-10');
    const reads = await explainReads(() => readFacts(deps, { publisherId: BIG, from, to, byLink: true }));
    expect([...new Set(reads.map((r) => r.collection))].sort()).toEqual(['stats', 'stats_rollups']);
    expect(reads.filter((r) => r.collection === 'stats')).toHaveLength(1);
    const cells = reads.find((r) => r.collection === 'stats')!;
    expect(cells.filter).toMatchObject({ publisher_id: BIG, v: 'l', g: 'd' });
    expect(cells.stats.nReturned).toBe(2 * LINKS);
    expect(cells.stats.totalDocsExamined).toBe(2 * LINKS);
    for (const r of reads) expect(r.plan.map((s) => s.stage)).not.toContain('COLLSCAN');
    expect(reads.find((r) => r.collection === 'stats_rollups')!.stats.totalDocsExamined).toBeLessThanOrEqual(90);
    // The same facts as the full cell scan, which reads a cell per link and month (and edge day).
    const full = await explainReads(() => readFacts(deps, { publisherId: BIG, from, to, byLink: true, cells: true }));
    expect(full.reduce((n, r) => n + r.stats.totalDocsExamined, 0)).toBeGreaterThanOrEqual(4 * LINKS);
    expect(clicksOf(await readFacts(deps, { publisherId: BIG, from, to, byLink: true }))).toBe(
      clicksOf(await readFacts(deps, { publisherId: BIG, from, to, byLink: true, cells: true })),
    );
  });
});

describe("the dashboard's totals and series (the account view), from its cells", () => {
  it('read a month cell per UTC month and a day cell per bucket edge off UTC midnight, one document each, whatever the keys', async () => {
    // A series for 90 days of Asia/Kathmandu by day (its local midnights are 18:15 UTC): each day's
    // sum is a month cell's day nodes and an edge day's quarter nodes, so the account view (one
    // group) reads 4 month cells and the cells of its 91 edges' days (the range's two ends and the
    // 89 local midnights between), however many links, sub-IDs and programs the account has. A
    // roll-up would not save a read: a local day there holds no whole UTC day, and whole UTC days
    // are a month cell's day nodes already.
    const calendar = zoneCalendar('Asia/Kathmandu');
    const from = calendar.dayStart('2026-01-10');
    const to = calendar.dayStart('2026-04-10');
    let clicks = 0;
    const reads = await explainReads(async () => (clicks = clicksOf(await readFacts(deps, { publisherId: BIG, from, to, calendar, bucket: 'day' }))));
    expect(clicks).toBe(clicksOf(await readFacts(deps, { publisherId: BIG, from, to, byLink: true })));
    expect(reads.map((r) => r.collection)).toEqual(['stats', 'stats']);
    for (const r of reads) {
      expect(r.filter).toMatchObject({ publisher_id: BIG, v: 'a' });
      expect(r.plan.map((s) => s.stage)).not.toContain('COLLSCAN');
      expect(r.stats.totalDocsExamined).toBe(r.stats.nReturned);
    }
    const examined = Object.fromEntries(reads.map((r) => [r.filter.g as string, r.stats.totalDocsExamined]));
    expect(examined).toEqual({ m: 4, d: 91 });
    // Its totals (the previous period's): the months and the two edge days.
    const totals = await explainReads(() => readFacts(deps, { publisherId: BIG, from, to }));
    expect(totals.reduce((n, r) => n + r.stats.totalDocsExamined, 0)).toBe(4 + 2);
  });
});
