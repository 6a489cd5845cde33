/**
 * The roll-ups (./rollups.ts) on a real database: a range's totals per sub-ID, program, both, or
 * link read from the roll-ups equal the full scan of the cells, on random clicks and conversion
 * changes in random ranges of UTC, America/New_York and Asia/Kathmandu days (property tested),
 * whether a period's document is built, only written by writers, absent or over its size bound;
 * a transaction applied twice (a crashed writer's, finished by a pass) counts once in both; the
 * reads touch a bounded number of documents; and a build stopped part-way goes on where it was.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';
import { conversionsDomain } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import { parseDecimal } from '@cw/money';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';
import { addDays, zoneCalendar } from './calendar';
import { DAY_MS, Increments, QUARTER_MS, type Attribution, type ConversionFacts } from './cells';
import { statsDomain, type StatsModels } from './data/stats.data';
import type { StatsDeps } from './deps';
import { readFacts, type Fact, type StatsQuery } from './reader';
import { buildPendingRollups, buildStatsRollups, ROLLUP_CACHE, ROLLUP_LIMITS, rollupKey, dimsOfKey } from './rollups';
import { applyIncrements, closeTxn, newTxnId, storedIncs } from './writer';

let engine: TestEngine;
let db: Database;
let stats: StatsModels;
let deps: Pick<StatsDeps, 'data'>;

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri);
  const conversions = conversionsDomain.open(db.connection);
  const s = statsDomain.open(db.connection);
  const eventsFeed = eventsFeedDomain.open(db.connection);
  stats = s.models;
  for (const m of [conversions.models, s.models, eventsFeed.models]) await migrateIndexes(m);
  deps = { data: { conversions: conversions.handle, stats: s.handle, eventsFeed: eventsFeed.handle } } as unknown as Pick<StatsDeps, 'data'>;
});
afterAll(async () => {
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

const account = () => `pub_${randomBytes(6).toString('hex')}`;
const T0 = Date.parse('2025-12-20T00:00:00Z');
const SPAN_DAYS = 75;
const SUBIDS = ['', 'fb', 'a.b', '$x', 'tilde~%2e', 'ü'];
const ZONES = ['UTC', 'America/New_York', 'Asia/Kathmandu'] as const;

interface RandomFact {
  quarter: number;
  subid: number;
  program: number;
  link: boolean;
  clicks: number;
  sale?: { status: ConversionFacts['status']; paid: boolean; currency: string; amount: string; commission: string; undo: boolean };
}

const factArb: fc.Arbitrary<RandomFact> = fc.record({
  quarter: fc.integer({ min: 0, max: SPAN_DAYS * 96 - 1 }),
  subid: fc.integer({ min: 0, max: SUBIDS.length - 1 }),
  program: fc.integer({ min: 0, max: 3 }),
  link: fc.boolean(),
  clicks: fc.integer({ min: 0, max: 3 }),
  sale: fc.option(
    fc.record({
      status: fc.constantFrom('pending' as const, 'approved' as const, 'declined' as const),
      paid: fc.boolean(),
      currency: fc.constantFrom('EUR', 'GBP', 'JPY'),
      amount: fc.integer({ min: 1, max: 99_999 }).map((c) => (c / 100).toFixed(2)),
      commission: fc.integer({ min: 0, max: 9_999 }).map((c) => (c / 1000).toFixed(3)),
      undo: fc.boolean(),
    }),
    { nil: undefined },
  ),
});

/** The fact's attribution: program 0 is a ledger entry's (none); links are per sub-ID and program. */
const attributionOf = (publisherId: string, f: RandomFact): Attribution => ({
  publisher_id: publisherId,
  program_id: f.program === 0 ? null : 1000 + f.program,
  campaign_id: f.program === 0 ? null : 500 + (f.program % 2),
  subid: SUBIDS[f.subid]!,
  link_id: f.link && f.program ? `lnk_${f.subid}_${f.program}` : null,
});

/** Writes the facts through the writer, in transactions of a few facts; some applied twice (a crashed writer's, finished again). */
async function write(publisherId: string, facts: RandomFact[], replay: boolean[], perTxn = 6): Promise<void> {
  for (let i = 0; i < facts.length; i += perTxn) {
    const incs = new Increments();
    for (const f of facts.slice(i, i + perTxn)) {
      const a = attributionOf(publisherId, f);
      const at = T0 + f.quarter * QUARTER_MS;
      if (f.clicks) incs.clicks(a, at, f.clicks);
      if (f.sale) {
        const c: ConversionFacts = {
          status: f.sale.status,
          paid: f.sale.paid,
          source: a.program_id === null ? 'ledger' : 'v1',
          currency: f.sale.currency,
          sale_amount: f.sale.amount,
          commission: f.sale.commission,
        };
        incs.conversion(a, at, c, 1);
        // A change: counted in one state, then moved to approved.
        if (f.sale.undo) {
          incs.conversion(a, at, c, -1);
          incs.conversion(a, at, { ...c, status: 'approved' }, 1);
        }
      }
    }
    const stored = storedIncs(incs.nonZero());
    const txn = newTxnId();
    await applyIncrements(deps, txn, stored);
    if (replay[i % replay.length]) await applyIncrements(deps, txn, stored);
    await closeTxn(deps, txn, stored);
  }
}

/** Facts as comparable rows: per group and counter, amounts normalized (a scale's trailing zeros apart). */
function normalized(facts: Fact[]): string[] {
  const norm = (s: string) => {
    const d = parseDecimal(s);
    let { units, scale } = d;
    while (scale > 0 && units % 10n === 0n) {
      units /= 10n;
      scale--;
    }
    return `${units}e-${scale}`;
  };
  const rows = new Map<string, { clicks: number; n: number; sale: string[]; commission: string[] }>();
  for (const f of facts) {
    const c = f.conversion;
    const key = `${f.at}|${f.program_id}|${f.campaign_id}|${f.subid}|${f.link_id}|${c ? `${c.currency}_${c.status}_${c.source}_${c.paid}` : 'clicks'}`;
    const r = rows.get(key) ?? { clicks: 0, n: 0, sale: [], commission: [] };
    r.clicks += f.clicks;
    if (c) {
      r.n += c.n;
      r.sale.push(norm(c.sale));
      r.commission.push(norm(c.commission));
    }
    rows.set(key, r);
  }
  return [...rows].map(([k, r]) => `${k}|${r.clicks}|${r.n}|${r.sale.join()}|${r.commission.join()}`).sort();
}

const VIEWS: Array<Pick<StatsQuery, 'bySubid' | 'byProgram' | 'byLink'>> = [
  { bySubid: true },
  { byProgram: true },
  { bySubid: true, byProgram: true },
  { byLink: true },
];

/** A range of local days of a zone within (and around) the data's span. */
const rangeArb = fc.record({
  zone: fc.constantFrom(...ZONES),
  first: fc.integer({ min: -3, max: SPAN_DAYS }),
  days: fc.integer({ min: 1, max: 70 }),
});

async function expectSameAsCells(publisherId: string, r: { zone: string; first: number; days: number }) {
  const calendar = zoneCalendar(r.zone);
  const day0 = new Date(T0).toISOString().slice(0, 10);
  const from = calendar.dayStart(addDays(day0, r.first));
  const to = calendar.dayStart(addDays(day0, r.first + r.days));
  for (const view of VIEWS) {
    const q = { publisherId, from, to, ...view };
    const [rolled, cells] = await Promise.all([readFacts(deps, q), readFacts(deps, { ...q, cells: true })]);
    expect(normalized(rolled), `${JSON.stringify(view)} ${r.zone} ${r.first}+${r.days}`).toEqual(normalized(cells));
  }
}

describe('roll-up keys', () => {
  it('are field names (no dot, never $-led) that give back the group', () => {
    for (const subid of [...SUBIDS, null])
      for (const link of [null, 'lnk.1', 'a~b%'])
        for (const program of [null, 0, 17]) {
          const dims = { program_id: program, campaign_id: program === null ? null : 501, subid, link_id: link };
          const key = rollupKey(dims);
          for (const c of ['.', '$', '\u0000']) expect(key).not.toContain(c);
          expect(dimsOfKey(key)).toEqual(dims);
        }
  });
});

describe('reads from the roll-ups equal the full scan of the cells', () => {
  it('on random facts and ranges in UTC, America/New_York and Asia/Kathmandu: built, writer-only, absent and over documents', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(factArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('built', 'written', 'partly', 'live', 'absent', 'over' as const),
        fc.array(rangeArb, { minLength: 1, maxLength: 4 }),
        async (facts, replay, state, ranges) => {
          const publisherId = account();
          const half = Math.ceil(facts.length / 2);
          // 'written': every document only written by writers (never built: reads take the cells);
          // 'partly': a few built halfway; 'live': all built halfway, the rest written into them;
          // 'built': all built after; 'absent': then half of them gone; 'over': a tiny size bound.
          const limit = ROLLUP_LIMITS.bytes;
          if (state === 'over') ROLLUP_LIMITS.bytes = 700;
          try {
            await write(publisherId, facts.slice(0, half), replay);
            if (state === 'partly') await buildPendingRollups(deps, { limit: 3 });
            if (state === 'live') await buildStatsRollups(deps, { publisherId });
            await write(publisherId, facts.slice(half), replay);
            if (state === 'built' || state === 'over' || state === 'absent') await buildStatsRollups(deps, { publisherId });
            if (state === 'absent') {
              const docs = await stats.StatRollup.find({ publisher_id: publisherId }, { _id: 1 }).lean();
              await stats.StatRollup.deleteMany({ _id: { $in: docs.filter((_, i) => i % 2).map((d) => d._id) } });
            }
          } finally {
            ROLLUP_LIMITS.bytes = limit;
          }
          for (const r of ranges) await expectSameAsCells(publisherId, r);
        },
      ),
      { numRuns: 30 },
    );
  }, 600_000);

  it('reads documents only for the range, never a cell per key and month once built', async () => {
    const publisherId = account();
    const facts: RandomFact[] = [];
    for (let i = 0; i < 400; i++)
      facts.push({ quarter: (i * 977) % (SPAN_DAYS * 96), subid: i % SUBIDS.length, program: 1 + (Math.floor(i / SUBIDS.length) % 3), link: true, clicks: 1 });
    await write(publisherId, facts, [false], 50);
    await buildStatsRollups(deps, { publisherId });
    const from = Date.parse('2026-01-01T00:00:00Z');
    const to = Date.parse('2026-02-01T00:00:00Z');
    const rolled = await readFacts(deps, { publisherId, from, to, byLink: true });
    expect(normalized(rolled)).toEqual(normalized(await readFacts(deps, { publisherId, from, to, byLink: true, cells: true })));
    // A whole month: one roll-up document, no cell.
    const docs = await stats.StatRollup.countDocuments({ publisher_id: publisherId, v: 'l', g: 'm', t: new Date(from), ok: true });
    expect(docs).toBe(1);
    const cells = await stats.Stat.countDocuments({ publisher_id: publisherId, v: 'l', g: 'm', t: new Date(from) });
    expect(cells).toBeGreaterThan(10);
  }, 300_000);

  it("the readers' cache of decoded documents never answers a document's older content", async () => {
    const publisherId = account();
    const facts = (offset: number): RandomFact[] =>
      Array.from({ length: 60 }, (_, i) => ({
        quarter: (i * 331 + offset) % (SPAN_DAYS * 96),
        subid: i % SUBIDS.length,
        program: 1 + (i % 3),
        link: true,
        clicks: 1 + (i % 2),
        sale: { status: 'approved', paid: false, currency: 'EUR', amount: `${i}.5${offset % 10}`, commission: '0.125', undo: false },
      }));
    const range = { zone: 'Asia/Kathmandu', first: -1, days: SPAN_DAYS + 2 };
    const whole = { zone: 'UTC', first: 12, days: 31 + 28 };
    await write(publisherId, facts(0), [false], 10);
    await buildStatsRollups(deps, { publisherId });
    // Read twice (the second from the cache), then written into (each write bumps `w`): the new totals.
    await expectSameAsCells(publisherId, range);
    await expectSameAsCells(publisherId, whole);
    await write(publisherId, facts(7), [true], 10);
    await expectSameAsCells(publisherId, range);
    await buildPendingRollups(deps, { limit: 1000 });
    await expectSameAsCells(publisherId, whole);
    // Deleted and built again (the write count starts over; the build's token is new), and with a tiny cache (evictions).
    await stats.StatRollup.deleteMany({ publisher_id: publisherId });
    await write(publisherId, facts(3), [false], 10);
    await buildStatsRollups(deps, { publisherId });
    const keys = ROLLUP_CACHE.keys;
    ROLLUP_CACHE.keys = 5;
    try {
      await expectSameAsCells(publisherId, whole);
      await expectSameAsCells(publisherId, range);
    } finally {
      ROLLUP_CACHE.keys = keys;
    }
    await expectSameAsCells(publisherId, whole);
  }, 300_000);

  it('a build stopped part-way goes on where it was, and a rerun builds nothing', async () => {
    const publisherId = account();
    const facts: RandomFact[] = Array.from({ length: 40 }, (_, i) => ({ quarter: i * 150, subid: i % 3, program: 1, link: false, clicks: 2 }));
    await write(publisherId, facts, [false]);
    await stats.StatRollup.deleteMany({ publisher_id: publisherId });
    const progress: string[] = [];
    const first = await buildStatsRollups(deps, {
      publisherId,
      from: new Date(T0 + 40 * DAY_MS),
      onProgress: (p) => progress.push(`${p.month} ${p.done}/${p.total}`),
    });
    expect(first.built).toBeGreaterThan(0);
    expect(progress.length).toBe(first.months);
    const second = await buildStatsRollups(deps, { publisherId });
    expect(second.built).toBeGreaterThan(0);
    expect((await buildStatsRollups(deps, { publisherId })).built).toBe(0);
    await expectSameAsCells(publisherId, { zone: 'Asia/Kathmandu', first: 2, days: 60 });
  }, 300_000);
});
