/**
 * The stats read model is exact: random histories (clicks, bots, sales in several currencies,
 * every status change, ledger entries, retried reports and retried counting, crashes between a
 * change and its application) through the real lifecycle and the real tracker write path (every
 * other history with writes that leave their change to the worker's pass, as a write that finds
 * the account's stats lease held does: docs/decisions/0046-stats-read-contract.md), then
 * every aggregate that reads the model equals aggregating the raw rows (an oracle written here,
 * reading the zone's calendar with Intl directly): reports, the conversions rollup, the reporting
 * summary, the portal's overview (totals, previous period, series, top links) and links' totals.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { paymentStatus } from '@cw/account';
import type { ClickRow } from '@cw/links';
import { addDecimals, compareDecimals, formatDecimal, minorUnits, parseDecimal } from '@cw/money';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { bookLedgerEntry, changeStatus, conversionsDomain, recordSale } from '@cw/conversions';
import { bookPendingSales, verifyLedger } from '@cw/ledger';
import { countAccountChanges, countPendingChanges, rebuildStats, recoverClickBatches, STATS_STEPS, storeCountedClicks } from '@cw/stats';
import { accountOverview, accountTop, conversionReport, linkTotals, listConversions, salesSummary } from '@cw/reports';

let deps: TestDeps;
/** The same data, but the lifecycle's port unwired: its writes leave every change to the worker's pass. */
let uncounted: Pick<TestDeps, 'data' | 'config'>;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 0 });
  uncounted = { config: deps.config, data: { ...deps.data, conversions: conversionsDomain.open(deps.db.connection).handle } };
});
afterAll(() => deps?.close());

const BASE = Date.parse('2026-03-26T00:00:00Z'); // the EU's clocks change on 2026-03-29, a month ends on the 31st
const SPAN_H = 10 * 24;
// Some clicks (and their sales) fall weeks around the dense span, so ranges also hold whole months
// (a month cell's total) and edges deep inside a month (its day nodes).
const SPREAD_H = 40 * 24;
const PROGRAMS = [
  { id: 1001, merchant: 501 },
  { id: 1003, merchant: 502 },
];
const CURRENCIES = ['EUR', 'JPY', 'KWD'];
const ZONES = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'Europe/Berlin', 'America/New_York', 'Pacific/Chatham'];
const SUBIDS = ['', 'fb', 'ig'];

type Action =
  | { kind: 'clicks'; batch: Array<{ program: number; subid: string; hour: number; minute: number; bot: boolean }>; crash: boolean }
  | { kind: 'sale'; click: number; amount: number; currency: string; afterMin: number; retry: boolean }
  | { kind: 'status'; conversion: number; to: 'approved' | 'declined' }
  | { kind: 'ledger'; amount: number; currency: string; program: number | null }
  | { kind: 'count'; crash: 'none' | 'after_txn' | 'half_applied'; twice: boolean };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('clicks' as const),
      batch: fc.array(
        fc.record({
          program: fc.integer({ min: 0, max: 1 }),
          subid: fc.constantFrom(...SUBIDS),
          hour: fc.oneof(
            { weight: 3, arbitrary: fc.integer({ min: 0, max: SPAN_H - 1 }) },
            { weight: 1, arbitrary: fc.integer({ min: -SPREAD_H, max: SPREAD_H }) },
          ),
          minute: fc.integer({ min: 0, max: 59 }),
          bot: fc.boolean(),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      crash: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('sale' as const),
      click: fc.nat(),
      amount: fc.integer({ min: 1, max: 99_999 }),
      currency: fc.constantFrom(...CURRENCIES),
      afterMin: fc.integer({ min: 0, max: 3 * 24 * 60 }),
      retry: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('status' as const), conversion: fc.nat(), to: fc.constantFrom('approved' as const, 'declined' as const) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('ledger' as const),
      amount: fc.integer({ min: -5000, max: 5000 }).filter((n) => n !== 0),
      currency: fc.constantFrom(...CURRENCIES),
      program: fc.option(fc.integer({ min: 0, max: 1 }), { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('count' as const),
      crash: fc.constantFrom('none' as const, 'after_txn' as const, 'half_applied' as const),
      twice: fc.boolean(),
    }),
  },
);

const query = fc.record({
  zone: fc.constantFrom(...ZONES),
  fromDay: fc.oneof(fc.integer({ min: -2, max: 9 }), fc.integer({ min: -42, max: 42 })),
  days: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 90 })),
  groupBy: fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'subid' as const, 'campaign' as const, 'status' as const),
  status: fc.option(fc.constantFrom('pending' as const, 'approved' as const, 'declined' as const), { nil: undefined }),
  subid: fc.option(fc.constantFrom('fb', 'ig'), { nil: undefined }),
  summaryBy: fc.constantFrom('subid' as const, 'day' as const, 'merchant' as const),
});

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const localDay = (zone: string, t: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);
const mondayOf = (day: string) => {
  const t = Date.parse(`${day}T00:00:00Z`);
  return isoDay(t - ((new Date(t).getUTCDay() + 6) % 7) * 86_400_000);
};
const amountOf = (minor: number, currency: string) => formatDecimal({ units: BigInt(minor), scale: minorUnits(currency) }, minorUnits(currency));

interface RawConversion {
  _id: string;
  subid: string;
  campaign_id?: number;
  link_id?: string;
  status: 'pending' | 'approved' | 'declined';
  paid: boolean;
  source: 'v1' | 'ledger';
  currency: string;
  sale_amount: { toString(): string };
  commission: { toString(): string };
  occurred_at: Date;
}

/** Per-currency sums the way the API shows them. */
function sums(rows: Array<{ currency: string; value: string }>): Record<string, string> {
  const by = new Map<string, string[]>();
  for (const r of rows) by.set(r.currency, [...(by.get(r.currency) ?? []), r.value]);
  return Object.fromEntries(
    [...by].sort(([a], [b]) => a.localeCompare(b)).map(([c, vs]) => [c, formatDecimal(addDecimals(vs.map((v) => parseDecimal(v))), minorUnits(c))]),
  );
}

/** The lifecycle's deps: the platform's (each write counts its change) or with data that counts none (the worker's pass does). */
type Writer = Pick<TestDeps, 'data' | 'config'>;

async function runHistory(actions: Action[], publisherId: string, writer: Writer) {
  const clicks: ClickRow[] = [];
  const conversions: string[] = [];
  let n = 0;
  for (const a of actions) {
    if (a.kind === 'clicks') {
      const batch = a.batch.map((c) => {
        const program = PROGRAMS[c.program]!;
        return {
          _id: `clk_x${publisherId.slice(4)}_${n++}`,
          // A link per program and sub-ID, as the links API makes them.
          link_id: `lnk_x${c.program}${c.subid}`,
          publisher_id: publisherId,
          program_id: program.id,
          campaign_id: program.merchant,
          subid: c.subid,
          created_at: new Date(BASE + c.hour * 3_600_000 + c.minute * 60_000),
          user_agent: '',
          ip_hash: '',
          referrer: '',
          is_bot: c.bot,
        } as ClickRow;
      });
      if (a.crash) {
        // The tracker dies after storing the batch and before counting it: a pass finishes it.
        await storeCountedClicks(deps, batch, async (rows, txn) => {
          await deps.data.links.insertClickRows(rows, txn);
          throw new Error('the tracker died here');
        }).catch(() => undefined);
      } else await storeCountedClicks(deps, batch, (rows, txn) => deps.data.links.insertClickRows(rows, txn));
      clicks.push(...batch.filter((c) => !c.is_bot));
    } else if (a.kind === 'sale') {
      if (!clicks.length) continue;
      const click = clicks[a.click % clicks.length]!;
      const merchant = { merchantId: click.campaign_id, credentialId: 'crd_test', prefix: 'test' };
      const input = {
        click_id: click._id,
        order_id: `ord_${n++}`,
        amount: amountOf(a.amount, a.currency),
        currency: a.currency,
        occurred_at: new Date(Math.min(click.created_at.getTime() + a.afterMin * 60_000, Date.now())).toISOString(),
      };
      const sale = await recordSale(writer, merchant, input);
      // A merchant retrying the same order: the same conversion, nothing counted twice.
      if (a.retry) expect((await recordSale(writer, merchant, input)).created).toBe(false);
      conversions.push(sale.conversion._id);
    } else if (a.kind === 'status') {
      if (!conversions.length) continue;
      await changeStatus(writer, conversions[a.conversion % conversions.length]!, a.to).catch((e: { code?: string }) => {
        if (e.code !== 'invalid_transition') throw e;
      });
    } else if (a.kind === 'ledger') {
      const program = a.program === null ? undefined : PROGRAMS[a.program]!;
      await bookLedgerEntry(writer, {
        publisherId,
        amount: amountOf(a.amount, a.currency),
        currency: a.currency,
        reason: 'test',
        programId: program?.id,
        merchantId: program?.merchant,
      });
    } else if (a.crash !== 'none') {
      // An applier (which, like every applier, first finishes what a dead one left) dies after
      // storing its transaction, or after half of its cells.
      await STATS_STEPS.recoverAccount(deps, publisherId);
      const prepared = await STATS_STEPS.prepareCount(deps, publisherId);
      if (prepared && a.crash === 'half_applied')
        await STATS_STEPS.applyIncrements(
          deps,
          prepared.txnId,
          prepared.incs.filter((_, i) => i % 2 === 0),
        );
      if (a.twice && prepared) await STATS_STEPS.finishConversions(deps, prepared.txnId, prepared.conversions, prepared.incs);
    } else if (a.twice) await Promise.all([countAccountChanges(deps, publisherId), countAccountChanges(deps, publisherId)]);
    else await countAccountChanges(deps, publisherId);
  }
}

describe('the stats read model', () => {
  it('equals aggregating the raw rows after any history, retry and crash', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), fc.array(query, { minLength: 1, maxLength: 3 }), async (actions, queries) => {
        const leftToWorker = run % 2 === 1;
        const publisherId = `pub_stats${run++}_${Math.random().toString(36).slice(2, 8)}`;
        await deps.models.Publisher.create({ _id: publisherId, name: 'Stats', status: 'active' });
        const principal = { publisher: { _id: publisherId } } as unknown as Principal;
        await runHistory(actions, publisherId, leftToWorker ? uncounted : deps);
        if (leftToWorker) {
          // Until the worker's pass, an answer dates itself at the oldest change not counted yet: a sale
          // event the stats have not read from the log (after their checkpoint, or not logged yet), a
          // network booking not counted.
          const head = await deps.models.EventLogHead.findById(publisherId).lean<{ consumed?: { stats?: number } }>();
          const read = new Set(
            (await deps.models.SaleEvent.find({ publisher_id: publisherId, seq: { $lte: head?.consumed?.stats ?? 0 } }, { _id: 1 }).lean()).map((e) =>
              String(e._id),
            ),
          );
          const rows = await deps.models.Conversion.find({ publisher_id: publisherId }, { events: 1, source: 1, stats_key: 1, created_at: 1 }).lean<
            Array<{ events: Array<{ _id: string; created_at: Date }>; source: string; stats_key?: string; created_at: Date }>
          >();
          const pending = rows.flatMap((c) =>
            c.source === 'ledger' ? (c.stats_key ? [] : [c.created_at]) : c.events.filter((e) => !read.has(e._id)).map((e) => e.created_at),
          );
          const { as_of } = await conversionReport(deps, principal, { group_by: 'status', timezone: 'UTC' });
          if (pending.length) expect(as_of).toBe(new Date(Math.min(...pending.map((t) => t.getTime()))).toISOString());
          await countPendingChanges(deps);
          // The ledger's pass (payment status reads its balance).
          await bookPendingSales(deps);
        }
        // Click batches whose writer died are finished by the worker's pass once their lease is over.
        await recoverClickBatches(deps, new Date(Date.now() + 3_600_000));
        const raw = await deps.models.Conversion.find({ publisher_id: publisherId }).lean<RawConversion[]>();
        const rawClicks = (await deps.data.links.storedClicks({ publisherId })).filter((c) => !c.is_bot);
        for (const q of queries) {
          const dateFrom = isoDay(BASE + q.fromDay * 86_400_000);
          const dateTo = isoDay(BASE + (q.fromDay + q.days - 1) * 86_400_000);
          const inRange = (t: Date) => {
            const d = localDay(q.zone, t.getTime());
            return d >= dateFrom && d <= dateTo;
          };

          // /reports/
          const report = await conversionReport(deps, principal, {
            group_by: q.groupBy,
            date_from: dateFrom,
            date_to: dateTo,
            timezone: q.zone,
            status: q.status,
            subid: q.subid,
          });
          const matched = raw.filter((c) => inRange(c.occurred_at) && (!q.status || c.status === q.status) && (q.subid === undefined || c.subid === q.subid));
          const keyOf = (c: RawConversion) => {
            const d = localDay(q.zone, c.occurred_at.getTime());
            return {
              day: d,
              week: mondayOf(d),
              month: d.slice(0, 7),
              subid: c.subid || null,
              campaign: c.campaign_id === undefined ? null : String(c.campaign_id),
              status: c.status,
            }[q.groupBy];
          };
          const expectedRows = new Map<string | null, RawConversion[]>();
          for (const c of matched) expectedRows.set(keyOf(c), [...(expectedRows.get(keyOf(c)) ?? []), c]);
          const show = (cs: RawConversion[]) => ({
            conversions: cs.length,
            approved: cs.filter((c) => c.status === 'approved').length,
            pending: cs.filter((c) => c.status === 'pending').length,
            declined: cs.filter((c) => c.status === 'declined').length,
            sale_amount: sums(cs.map((c) => ({ currency: c.currency, value: c.sale_amount.toString() }))),
            commission: sums(cs.map((c) => ({ currency: c.currency, value: c.commission.toString() }))),
          });
          expect(report.totals).toEqual(show(matched));
          for (const row of report.rows) expect(row).toEqual({ key: row.key, ...show(expectedRows.get(row.key) ?? []) });
          for (const k of expectedRows.keys()) expect(report.rows.map((r) => r.key)).toContain(k);

          // /conversions/ subid_rollup over the UTC days of the range
          const list = await listConversions(deps, principal, { date_from: dateFrom, date_to: dateTo, source: 'all', status: q.status, page: 1, page_size: 1 });
          const utcMatched = raw.filter(
            (c) => isoDay(c.occurred_at.getTime()) >= dateFrom && isoDay(c.occurred_at.getTime()) <= dateTo && (!q.status || c.status === q.status),
          );
          const bySubid = new Map<string, RawConversion[]>();
          for (const c of utcMatched) bySubid.set(c.subid, [...(bySubid.get(c.subid) ?? []), c]);
          expect(list.subid_rollup).toEqual(
            [...bySubid]
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([s, cs]) => ({
                subid: s || null,
                conversions: cs.length,
                commission: sums(cs.map((c) => ({ currency: c.currency, value: c.commission.toString() }))),
              })),
          );

          // reporting summary/ (sales only, clicks without bots; a status filter narrows sales only)
          const summary = await salesSummary(deps, principal, {
            group_by: q.summaryBy,
            date_from: dateFrom,
            date_to: dateTo,
            timezone: q.zone,
            status: q.status,
          });
          const sKey = (subid: string, campaign: number | undefined, t: Date) =>
            JSON.stringify(q.summaryBy === 'subid' ? subid || null : q.summaryBy === 'merchant' ? (campaign ?? null) : localDay(q.zone, t.getTime()));
          const expected = new Map<string, { clicks: number; sales: number; earnings: Array<{ currency: string; value: string }> }>();
          const at = (k: string) => expected.get(k) ?? (expected.set(k, { clicks: 0, sales: 0, earnings: [] }), expected.get(k)!);
          for (const k of rawClicks) if (inRange(k.created_at)) at(sKey(k.subid ?? '', k.campaign_id, k.created_at)).clicks++;
          for (const c of raw)
            if (c.source === 'v1' && inRange(c.occurred_at) && (!q.status || c.status === q.status)) {
              const e = at(sKey(c.subid, c.campaign_id, c.occurred_at));
              e.sales++;
              e.earnings.push({ currency: c.currency, value: c.commission.toString() });
            }
          const got = new Map(summary.data.map((r) => [JSON.stringify('sub_id' in r ? r.sub_id : 'day' in r ? r.day : r.merchant ? r.merchant.id : null), r]));
          expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
          for (const [k, e] of expected) expect(got.get(k)).toMatchObject({ clicks: e.clicks, sales: e.sales, earnings: sums(e.earnings) });
        }

        // The portal's overview and links' totals.
        for (const q of queries) {
          const dateFrom = isoDay(BASE + q.fromDay * 86_400_000);
          const dateTo = isoDay(BASE + (q.fromDay + q.days - 1) * 86_400_000);
          const overview = await accountOverview(deps, principal, { date_from: dateFrom, date_to: dateTo, timezone: q.zone });
          const top = await accountTop(deps, principal, { date_from: dateFrom, date_to: dateTo, timezone: q.zone, top: 20 });
          const daysOf = (from: string, to: string) => (t: Date) => {
            const d = localDay(q.zone, t.getTime());
            return d >= from && d <= to;
          };
          const totalsOf = (within: (t: Date) => boolean) => {
            const cs = raw.filter((c) => within(c.occurred_at));
            const of = (st: string) => cs.filter((c) => c.status === st);
            const money = (list: RawConversion[]) => sums(list.map((c) => ({ currency: c.currency, value: c.commission.toString() })));
            return {
              clicks: rawClicks.filter((k) => within(k.created_at)).length,
              conversions: { total: cs.length, pending: of('pending').length, approved: of('approved').length, declined: of('declined').length },
              commission: {
                earned: money([...of('pending'), ...of('approved')]),
                pending: money(of('pending')),
                approved: money(of('approved')),
                declined: money(of('declined')),
              },
            };
          };
          expect(overview.totals).toMatchObject(totalsOf(daysOf(dateFrom, dateTo)));
          expect(overview.previous.totals).toMatchObject(totalsOf(daysOf(overview.previous.date_from, overview.previous.date_to)));
          // The series: every period of the range, its clicks and conversions.
          const periodOf = (t: Date) => {
            const d = localDay(q.zone, t.getTime());
            return overview.bucket === 'day' ? d : overview.bucket === 'week' ? mondayOf(d) : d.slice(0, 7);
          };
          const within = daysOf(dateFrom, dateTo);
          for (const p of overview.series) {
            expect(p.clicks).toBe(rawClicks.filter((k) => within(k.created_at) && periodOf(k.created_at) === p.period).length);
            expect(p.conversions).toBe(raw.filter((c) => within(c.occurred_at) && periodOf(c.occurred_at) === p.period).length);
          }
          expect(overview.series.reduce((n, p) => n + p.clicks, 0)).toBe(overview.totals.clicks);
          // Top links: every link with traffic in range (ledger entries have none).
          for (const l of top.links) {
            expect(l.clicks).toBe(rawClicks.filter((k) => within(k.created_at) && k.link_id === l.link_id).length);
            expect(l.conversions).toBe(raw.filter((c) => within(c.occurred_at) && c.link_id === l.link_id).length);
          }
        }
        const linkIds = [...new Set(rawClicks.map((k) => k.link_id))];
        if (linkIds.length) {
          const totals = await linkTotals(deps, principal, { ids: [...linkIds, 'lnk_unknown'].join(',') });
          for (const t of totals.data) {
            const cs = raw.filter((c) => c.link_id === t.link_id && c.status !== 'declined');
            expect(t).toMatchObject({
              clicks: rawClicks.filter((k) => k.link_id === t.link_id).length,
              conversions: raw.filter((c) => c.link_id === t.link_id).length,
              commission: sums(cs.map((c) => ({ currency: c.currency, value: c.commission.toString() }))),
            });
          }
        }

        // payment status: approved unpaid ever, pending of the window
        const status = await paymentStatus(deps, principal);
        // The ledger's balance per currency; a currency whose balance is zero is not listed.
        const approved = raw.filter((c) => c.status === 'approved' && !c.paid);
        expect(Object.fromEntries(status.approved_unpaid.by_currency.map((b) => [b.currency, b.amount]))).toEqual(
          Object.fromEntries(
            Object.entries(sums(approved.map((c) => ({ currency: c.currency, value: c.commission.toString() })))).filter(
              ([, v]) => compareDecimals(v, '0') !== 0,
            ),
          ),
        );

        expect((await verifyLedger(deps)).problems).toEqual([]);

        // A rebuild from the raw rows finds nothing to change.
        expect((await rebuildStats(deps, { publisherId })).cells_changed).toBe(0);
      }),
      { numRuns: 30, endOnFailure: true },
    );
  }, 600_000);
});
