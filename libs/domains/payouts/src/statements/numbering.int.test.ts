/**
 * Statement numbers on the embedded engine: gapless per publisher and calendar year under
 * concurrent issuance, the same statement (and number) when issued again, a year of its own
 * from 1, and a correction taking the next number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { payoutsDomain, payoutsModels, type PayoutsModels } from '../data/payouts.data';
import { insertNumbered, statementIdOf } from './issue';

let engine: TestDatabase;
let models: PayoutsModels;

beforeAll(async () => {
  engine = await startTestDatabase();
  models = payoutsModels(await openDomain(engine, payoutsDomain));
}, 60_000);
afterAll(() => engine?.stop());

const payoutId = (n: number) => `po_${n.toString(16).padStart(24, '0')}`;
const make = async (number: string) => ({ snapshot: { number, supersedes: null }, pdf: Buffer.from(`%PDF- ${number}`) });

describe('statement numbers', () => {
  it('numbers 20 payouts of one publisher issued at once 1 to 20, without gaps or repeats', async () => {
    const issuedAt = new Date('2026-04-30T12:00:00Z');
    const rows = await Promise.all(
      Array.from({ length: 20 }, (_, i) => insertNumbered(models, { publisherId: 'pub_num', payoutId: payoutId(i + 1), revision: 1, issuedAt }, make)),
    );
    expect(rows.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(rows.map((r) => r.number)).size).toBe(20);
    expect(rows.every((r) => /^2026-0000(0[1-9]|1\d|20)$/.test(r.number))).toBe(true);
    // Each statement's PDF and snapshot carry its own number.
    for (const r of rows) expect((r.snapshot as { number: string }).number).toBe(r.number);
    expect(await models.Statement.countDocuments({ publisher_id: 'pub_num' })).toBe(20);
  });

  it('answers the same statement when one payout is issued again, also at once, and stores it once', async () => {
    const issuedAt = new Date('2026-05-02T08:00:00Z');
    const key = { publisherId: 'pub_num', payoutId: payoutId(100), revision: 1, issuedAt };
    const [a, b, c] = await Promise.all([insertNumbered(models, key, make), insertNumbered(models, key, make), insertNumbered(models, key, make)]);
    expect(a.number).toBe('2026-000021');
    expect([b.number, c.number]).toEqual([a.number, a.number]);
    const again = await insertNumbered(models, key, make);
    expect(again.number).toBe(a.number);
    expect(await models.Statement.countDocuments({ payout_id: payoutId(100) })).toBe(1);
    expect(again._id).toBe(statementIdOf(payoutId(100), 1));
  });

  it('starts each calendar year at 1, and keeps publishers apart', async () => {
    const n2027 = await insertNumbered(
      models,
      { publisherId: 'pub_num', payoutId: payoutId(200), revision: 1, issuedAt: new Date('2027-01-01T00:00:00Z') },
      make,
    );
    expect(n2027.number).toBe('2027-000001');
    const other = await insertNumbered(
      models,
      { publisherId: 'pub_other', payoutId: payoutId(201), revision: 1, issuedAt: new Date('2026-12-31T23:59:59Z') },
      make,
    );
    expect(other.number).toBe('2026-000001');
  });

  it('gives a correction of a payout the next number, beside the statement it supersedes', async () => {
    const first = await insertNumbered(
      models,
      { publisherId: 'pub_fix', payoutId: payoutId(300), revision: 1, issuedAt: new Date('2026-06-01T00:00:00Z') },
      make,
    );
    const fix = await insertNumbered(
      models,
      { publisherId: 'pub_fix', payoutId: payoutId(300), revision: 2, issuedAt: new Date('2026-06-03T00:00:00Z') },
      async (number) => ({ snapshot: { number, supersedes: first.number }, pdf: Buffer.from('%PDF- fix') }),
    );
    expect([first.number, fix.number]).toEqual(['2026-000001', '2026-000002']);
    expect(fix.supersedes).toBe(first.number);
    expect(fix._id).toBe(statementIdOf(payoutId(300), 2));
    expect((await models.Statement.findById(first._id).lean())?.number).toBe(first.number);
  });
});
