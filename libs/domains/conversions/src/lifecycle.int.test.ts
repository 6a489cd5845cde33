/**
 * The status rules of the lifecycle on the embedded engine through mongoose: which changes are
 * allowed, what each one writes with its event (the outbox, the feed's and the read model's flags),
 * and one change for concurrent requests of the same change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { conversionsDomain, type ConversionRow, type ConversionsData } from './data/conversions.data';
import type { ConversionsDeps } from './deps';
import { changeStatus } from './lifecycle';

let engine: TestDatabase;
let deps: Pick<ConversionsDeps, 'data'>;
let conversions: ConversionsData;

beforeAll(async () => {
  engine = await startTestDatabase();
  conversions = await openDomain(engine, conversionsDomain);
  // changeStatus reads only this lib's own data.
  deps = { data: { conversions } } as unknown as Pick<ConversionsDeps, 'data'>;
}, 60_000);
afterAll(() => engine?.stop());

let n = 0;
async function sale(status: 'pending' | 'approved' | 'declined', merchant = 501): Promise<string> {
  const id = `cnv_test${++n}`;
  const row = {
    _id: id,
    publisher_id: 'pub_t',
    program_id: 7,
    campaign_id: merchant,
    subid: '',
    status,
    sale_amount: '80.00',
    commission: '6.40',
    currency: 'EUR',
    occurred_at: new Date('2026-11-01T10:00:00Z'),
    source: 'v1',
    reversed: false,
    events: [],
  } as unknown as ConversionRow;
  expect(await conversions.insertRows([row])).toBe(1);
  return id;
}

const codeOf = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return (e as ApiError).code;
};

describe('status transitions', () => {
  it('approves a pending sale with one sale.approved event, flagged for the events log only (its consumers read it there)', async () => {
    const id = await sale('pending');
    const at = new Date('2026-11-02T08:00:00Z');
    const c = await changeStatus(deps, id, 'approved', { now: at });
    expect(c).toMatchObject({ status: 'approved', reversed: false, log_pending: true });
    // No flag of the log's consumers (stats, postbacks): each reads the change from the log.
    expect(c).not.toHaveProperty('stats_pending');
    expect(c).not.toHaveProperty('outbox_since');
    expect(c.events.map((e) => [e.type, new Date(e.created_at).toISOString()])).toEqual([['sale.approved', at.toISOString()]]);
  });

  it('declines a pending sale (sale.declined) and reverses an approved one (sale.reversed, marked reversed)', async () => {
    const declined = await changeStatus(deps, await sale('pending'), 'declined');
    expect(declined).toMatchObject({ status: 'declined', reversed: false });
    expect(declined.events.map((e) => e.type)).toEqual(['sale.declined']);
    const reversed = await changeStatus(deps, await sale('approved'), 'declined');
    expect(reversed).toMatchObject({ status: 'declined', reversed: true });
    expect(reversed.events.map((e) => e.type)).toEqual(['sale.reversed']);
  });

  it('refuses every other change as invalid_transition, and writes nothing', async () => {
    const declined = await sale('declined');
    expect(await codeOf(changeStatus(deps, declined, 'approved'))).toBe('invalid_transition');
    expect(await codeOf(changeStatus(deps, declined, 'declined'))).toBe('invalid_transition');
    expect(await codeOf(changeStatus(deps, await sale('approved'), 'approved'))).toBe('invalid_transition');
    // The operator's reverse is only from approved: a pending sale is not reversed.
    expect(await codeOf(changeStatus(deps, await sale('pending'), 'declined', { onlyFrom: 'approved' }))).toBe('invalid_transition');
    const after = await changeStatus(deps, declined, 'approved').catch(() => undefined);
    expect(after).toBeUndefined();
  });

  it("does not find another merchant's sale, nor an unknown one", async () => {
    const id = await sale('pending', 501);
    expect(await codeOf(changeStatus(deps, id, 'approved', { merchantId: 502 }))).toBe('not_found');
    expect(await codeOf(changeStatus(deps, 'cnv_nope', 'approved'))).toBe('not_found');
    expect((await changeStatus(deps, id, 'approved', { merchantId: 501 })).status).toBe('approved');
  });

  it('makes one change and one event of concurrent approvals; the others find it already approved', async () => {
    const id = await sale('pending');
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => changeStatus(deps, id, 'approved')));
    const done = results.filter((r) => r.status === 'fulfilled');
    expect(done).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) expect((r.reason as ApiError).code).toBe('invalid_transition');
    const [c] = await Promise.all([changeStatus(deps, id, 'declined')]);
    expect(c.events.map((e) => e.type)).toEqual(['sale.approved', 'sale.reversed']);
  });
});
