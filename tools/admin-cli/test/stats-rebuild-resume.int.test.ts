/**
 * `stats:rebuild` resumable: random histories (clicks, sales in several currencies, status changes)
 * over several months of a few accounts through the real tracker write path and lifecycle; the read
 * model is then lost (cells and roll-ups deleted, some conversions as an import leaves them: never
 * marked counted) and rebuilt twice from the raw rows: once in one run, once interrupted after a
 * random month and gone on with `after` = the `resume` its last progress reported. Both end with
 * the same cells and roll-ups, equal (amounts compared as numbers) to what the writers had kept;
 * the resumed run does only the months left, and every progress line reports its throughput.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickRow } from '@cw/links';
import { parseDecimal } from '@cw/money';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { changeStatus, recordSale } from '@cw/conversions';
import { parseRebuildAfter, rebuildStats, storeCountedClicks, type RebuildProgress } from '@cw/stats';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 0 });
});
afterAll(() => deps?.close());

const BASE = Date.parse('2026-05-20T00:00:00Z');
const PROGRAMS = [
  { id: 1001, merchant: 501 },
  { id: 1003, merchant: 502 },
];
const CURRENCIES = ['EUR', 'JPY', 'KWD'];

const event = fc.record({
  account: fc.integer({ min: 0, max: 2 }),
  program: fc.integer({ min: 0, max: 1 }),
  subid: fc.constantFrom('', 'fb', 'ig'),
  hour: fc.integer({ min: 0, max: 110 * 24 }),
  minute: fc.integer({ min: 0, max: 59 }),
  sale: fc.option(
    fc.record({ minor: fc.integer({ min: 1, max: 99_999 }), currency: fc.constantFrom(...CURRENCIES), to: fc.constantFrom('pending', 'approved', 'declined') }),
  ),
});

/** Every stored cell and roll-up of these accounts, comparable: amounts as numbers, a build's token and transaction ids left out. */
async function snapshot(accounts: string[], collections = ['stats', 'stats_rollups']): Promise<string[]> {
  const norm = (v: unknown): unknown => {
    if (v && typeof v === 'object' && (v as { _bsontype?: string })._bsontype === 'Decimal128') {
      const d = parseDecimal(String(v));
      let { units, scale } = d;
      while (scale > 0 && units % 10n === 0n) {
        units /= 10n;
        scale--;
      }
      return `${units}e-${scale}`;
    }
    if (v instanceof Date) return v.toISOString();
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !['b', 'txns', 'w', 'fv'].includes(k))
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, x]) => [k, norm(x)])
          // A counter a change moved away from holds zeros in cells the writers kept; a rebuilt cell has none.
          .filter(([, x]) => !isZero(x)),
      );
    return v;
  };
  const isZero = (x: unknown): boolean => x === 0 || x === '0e-0' || (!!x && typeof x === 'object' && !Array.isArray(x) && Object.values(x).every(isZero));
  const db = deps.models.Stat.db;
  const out: string[] = [];
  for (const name of collections)
    for (const d of await db
      .collection(name)
      .find({ publisher_id: { $in: accounts } })
      .toArray())
      out.push(`${name} ${JSON.stringify(norm(d))}`);
  return out.sort();
}

/** The read model lost: cells and roll-ups gone, and some conversions never marked counted (as an import writes them). */
async function lose(accounts: string[]): Promise<void> {
  const db = deps.models.Stat.db;
  for (const name of ['stats', 'stats_rollups']) await db.collection(name).deleteMany({ publisher_id: { $in: accounts } });
  const ids = (
    await deps.models.Conversion.find({ publisher_id: { $in: accounts } }, { _id: 1 })
      .sort({ _id: 1 })
      .lean()
  ).map((c) => c._id);
  await deps.models.Conversion.updateMany({ _id: { $in: ids.filter((_, i) => i % 3 === 0) } }, { $unset: { stats_key: '' } });
}

describe('stats:rebuild', () => {
  it('interrupted after any month and gone on with --after ends equal to one uninterrupted run, and to what the writers kept', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 3, maxLength: 30 }), fc.nat(), async (events, stopAt) => {
        const accounts = [0, 1, 2].map((i) => `pub_rb${run}_${i}_${Math.random().toString(36).slice(2, 7)}`).sort();
        run++;
        for (const a of accounts) await deps.models.Publisher.create({ _id: a, name: 'Rebuild', status: 'active' });
        let n = 0;
        for (const e of events) {
          const publisherId = accounts[e.account]!;
          const program = PROGRAMS[e.program]!;
          const click = {
            _id: `clk_rb${run}_${n++}`,
            link_id: `lnk_rb${e.program}${e.subid}`,
            publisher_id: publisherId,
            program_id: program.id,
            campaign_id: program.merchant,
            subid: e.subid,
            created_at: new Date(BASE + e.hour * 3_600_000 + e.minute * 60_000),
            user_agent: '',
            ip_hash: '',
            referrer: '',
            is_bot: false,
          } as ClickRow;
          await storeCountedClicks(deps, [click], (rows, txn) => deps.data.links.insertClickRows(rows, txn));
          if (e.sale) {
            const merchant = { merchantId: program.merchant, credentialId: 'crd_test', prefix: 'test' };
            const minor = e.sale.currency === 'JPY' ? 0 : e.sale.currency === 'KWD' ? 3 : 2;
            const sale = await recordSale(deps, merchant, {
              click_id: click._id,
              order_id: `ord_rb${run}_${n++}`,
              amount: (e.sale.minor / 10 ** minor).toFixed(minor),
              currency: e.sale.currency,
              occurred_at: new Date(click.created_at.getTime() + 60_000).toISOString(),
            });
            if (e.sale.to !== 'pending') await changeStatus(deps, sale.conversion._id, e.sale.to as 'approved' | 'declined');
          }
        }
        // The cells the writers kept (their roll-ups are the pass's to build: compared between rebuilds only).
        const kept = await snapshot(accounts, ['stats']);
        expect(kept.length).toBeGreaterThan(0);

        // One uninterrupted run.
        await lose(accounts);
        for (const a of accounts) await rebuildStats(deps, { publisherId: a });
        const whole = await snapshot(accounts);
        expect(whole.filter((x) => x.startsWith('stats '))).toEqual(kept);

        // Interrupted after a random month (of all accounts' months, in id order), then gone on from its last progress.
        await lose(accounts);
        const seen: RebuildProgress[] = [];
        const total = { months: 0 };
        const stop = new Error('interrupted');
        const first = async () => {
          for (const a of accounts)
            await rebuildStats(deps, {
              publisherId: a,
              onProgress: (p) => {
                seen.push(p);
                if (++total.months === 1 + (stopAt % 6)) throw stop;
              },
            });
        };
        const stopped = await first().then(
          () => false,
          (e) => {
            if (e !== stop) throw e;
            return true;
          },
        );
        let resumed = 0;
        if (stopped) {
          const last = seen.at(-1)!;
          expect(last.rows_per_s).toBeGreaterThan(0);
          expect(last.s_per_million_rows).toBeGreaterThan(0);
          const after = parseRebuildAfter(last.resume)!;
          expect(after.publisherId).toBe(last.publisher);
          // Every account from the one it stopped in: that one after the month it reported, the rest whole.
          for (const a of accounts.filter((x) => x >= after.publisherId)) {
            const r = await rebuildStats(deps, { publisherId: a, after });
            resumed += r.months;
            expect(r.rows_per_s).toBeGreaterThanOrEqual(0);
          }
          const done = seen.length;
          expect(done + resumed).toBe(await monthsOfAll(accounts));
        }
        expect(await snapshot(accounts)).toEqual(whole);
        // The model is exact: a rebuild finds nothing to change.
        for (const a of accounts) expect((await rebuildStats(deps, { publisherId: a })).cells_changed).toBe(0);
      }),
      { numRuns: 8, endOnFailure: true },
    );
  }, 600_000);

  it('reads --after as an account or an account and a month', () => {
    expect(parseRebuildAfter('pub_1')).toEqual({ publisherId: 'pub_1' });
    expect(parseRebuildAfter('pub_1@2026-03')).toEqual({ publisherId: 'pub_1', month: Date.parse('2026-03-01T00:00:00Z') });
    for (const bad of ['pub_1@2026-13', 'pub_1@2026-3', '', 'a b']) expect(parseRebuildAfter(bad)).toBeUndefined();
  });
});

/** How many months the accounts' rebuild walks in all (one uninterrupted run reports each once). */
async function monthsOfAll(accounts: string[]): Promise<number> {
  let months = 0;
  for (const a of accounts) months += (await rebuildStats(deps, { publisherId: a })).months;
  return months;
}
