/**
 * The report's own rules on the embedded engine through mongoose, from sales stored as the
 * lifecycle stores them, counted into the read model: dense time groups in the report's zone,
 * groups by status, sub-ID and campaign, per-currency sums, the status and range filters; and the
 * list's filter (the caller's account, inclusive days).
 */
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { conversionsDomain, saleEvent, type ConversionRow } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import { linksDomain } from '@cw/links';
import { programsDomain } from '@cw/programs';
import { countAccountChanges, statsDomain } from '@cw/stats';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import type { ReportsDeps } from './deps';
import { conversionReport, conversionsFilter } from './reporting.service';

let engine: TestDatabase;
let deps: ReportsDeps;

const principal = (publisher: string) =>
  ({ publisher: { _id: publisher }, credentialId: 'key_t', prefix: 'cw_live_t', type: 'api_key', keyKind: 'live' }) as unknown as Principal;

let n = 0;
const sale = (publisher: string, at: string, over: Partial<Record<string, unknown>> = {}) =>
  ({
    _id: `cnv_r${++n}`,
    publisher_id: publisher,
    program_id: 7,
    campaign_id: 501,
    subid: '',
    status: 'pending',
    sale_amount: Types.Decimal128.fromString('80.00'),
    commission: Types.Decimal128.fromString('6.40'),
    currency: 'EUR',
    occurred_at: new Date(at),
    source: 'v1',
    reversed: false,
    paid: false,
    // Stored as the lifecycle stores a change: its event, flagged for the log (the stats read it from there).
    events: [saleEvent('sale.created', new Date(at))],
    log_pending: true,
    created_at: new Date(at),
    updated_at: new Date(at),
    ...over,
  }) as unknown as ConversionRow;

beforeAll(async () => {
  engine = await startTestDatabase();
  deps = {
    config: {} as ReportsDeps['config'],
    data: {
      conversions: await openDomain(engine, conversionsDomain),
      stats: await openDomain(engine, statsDomain),
      eventsFeed: await openDomain(engine, eventsFeedDomain),
      links: await openDomain(engine, linksDomain),
      programs: await openDomain(engine, programsDomain),
    },
  };
  await deps.data.conversions.insertRows([
    sale('pub_r', '2026-11-02T09:00:00Z', { subid: 'spring' }),
    sale('pub_r', '2026-11-02T23:30:00Z', { status: 'approved' }), // 00:30 on Nov 3 in Berlin
    sale('pub_r', '2026-11-04T12:00:00Z', { status: 'declined', campaign_id: 502, program_id: 8 }),
    sale('pub_r', '2026-11-04T13:00:00Z', {
      currency: 'GBP',
      sale_amount: Types.Decimal128.fromString('10.00'),
      commission: Types.Decimal128.fromString('0.80'),
    }),
    sale('pub_other', '2026-11-02T10:00:00Z'),
  ]);
  // Counted as the writes (or the worker's pass) count them; the report only reads the read model.
  for (const account of ['pub_r', 'pub_other']) await countAccountChanges(deps, account);
}, 60_000);
afterAll(() => engine?.stop());

const NOW = new Date('2026-11-10T12:00:00Z');
const report = (input: Record<string, unknown>, publisher = 'pub_r') => conversionReport(deps, principal(publisher), input as never, NOW);

describe('the conversions report', () => {
  it('groups by day densely over the range, each day of the UTC calendar, per currency', async () => {
    const r = await report({ group_by: 'day', date_from: '2026-11-01', date_to: '2026-11-05' });
    expect(r.rows.map((x) => [x.key, x.conversions])).toEqual([
      ['2026-11-01', 0],
      ['2026-11-02', 2],
      ['2026-11-03', 0],
      ['2026-11-04', 2],
      ['2026-11-05', 0],
    ]);
    expect(r.rows[3]).toMatchObject({ declined: 1, pending: 1, sale_amount: { EUR: '80.00', GBP: '10.00' }, commission: { EUR: '6.40', GBP: '0.80' } });
    expect(r.totals).toMatchObject({ conversions: 4, approved: 1, pending: 2, declined: 1, commission: { EUR: '19.20', GBP: '0.80' } });
  });

  it("puts a sale on the day of the report's time zone", async () => {
    const r = await report({ group_by: 'day', date_from: '2026-11-02', date_to: '2026-11-03', timezone: 'Europe/Berlin' });
    expect(r.timezone).toBe('Europe/Berlin');
    expect(r.rows.map((x) => [x.key, x.conversions, x.approved])).toEqual([
      ['2026-11-02', 1, 0],
      ['2026-11-03', 1, 1],
    ]);
  });

  it('groups by status, sub-ID (none as null) and campaign, leaving out empty groups; the status filter keeps one status', async () => {
    const range = { date_from: '2026-11-01', date_to: '2026-11-05' };
    expect((await report({ group_by: 'status', ...range })).rows.map((x) => [x.key, x.conversions])).toEqual([
      ['approved', 1],
      ['declined', 1],
      ['pending', 2],
    ]);
    expect((await report({ group_by: 'subid', ...range })).rows.map((x) => [x.key, x.conversions])).toEqual([
      [null, 3],
      ['spring', 1],
    ]);
    expect((await report({ group_by: 'campaign', ...range })).rows.map((x) => [x.key, x.conversions])).toEqual([
      ['501', 3],
      ['502', 1],
    ]);
    const pending = await report({ group_by: 'campaign', status: 'pending', ...range });
    expect(pending.totals).toMatchObject({ conversions: 2, approved: 0, declined: 0 });
  });

  it("shows only the caller's account", async () => {
    const r = await report({ group_by: 'status', date_from: '2026-11-01', date_to: '2026-11-05' }, 'pub_other');
    expect(r.totals.conversions).toBe(1);
  });

  it('refuses a range that ends before it starts, or longer than 366 days', async () => {
    await expect(report({ group_by: 'day', date_from: '2026-11-05', date_to: '2026-11-01' })).rejects.toMatchObject({ code: 'invalid_parameter' });
    await expect(report({ group_by: 'day', date_from: '2025-01-01', date_to: '2026-11-01' })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});

describe("the list's filter", () => {
  it("keeps the caller's account, both days inclusive, and every source for 'all'", () => {
    expect(conversionsFilter(principal('pub_r'), { date_from: '2026-11-01', date_to: '2026-11-02', source: 'all', status: 'approved' })).toEqual({
      publisher_id: 'pub_r',
      occurred_at: { $gte: new Date('2026-11-01T00:00:00Z'), $lt: new Date('2026-11-03T00:00:00Z') },
      status: 'approved',
    });
    expect(conversionsFilter(principal('pub_r'), { source: 'ledger', subid: '' })).toEqual({ publisher_id: 'pub_r', source: 'ledger', subid: '' });
  });
});
