/**
 * Postback delivery while the database drops every connection and comes back: the worker keeps
 * polling, makes the retry that fell due in the outage once the database is back, and delivers new
 * sales. The engine keeps its data on disk, so the restart loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionOf, faultBed, subidOf, until, type FaultBed } from './support/postback-harness';

let bed: FaultBed;
beforeAll(async () => {
  bed = await faultBed({ unitMs: 50, timeoutMs: 1000 });
});
afterAll(() => bed?.close());

const delivery = (conversionId: string) => bed.deps.models.PostbackDelivery.findOne({ conversion_id: conversionId }).lean();
const arrivals = (conversionId: string) => bed.receiver.received.filter((r) => conversionOf(r.body) === conversionId);

describe('postback delivery through a database outage', () => {
  it('keeps going when the database drops every connection and comes back: the retry is made, new sales delivered', { timeout: 60_000 }, async () => {
    await bed.startWorker();
    // Set before the sale: its first delivery can arrive before the sale's own answer.
    bed.receiver.behave = (r) => (subidOf(r.body) === 'outage' && bed.receiver.received.filter((x) => subidOf(x.body) === 'outage').length <= 2 ? 503 : 'ok');
    const id = await bed.fx.sale('outage');
    const second = await until(
      async () => {
        const d = await delivery(id);
        return d?.status === 'failed' && !d.leased_until && d.attempts === 2 ? d : undefined;
      },
      10_000,
      5,
    );
    // Its third attempt is due 200 ms later: the database is gone for 1.5 s around it.
    await bed.deps.tdb.restart(1500);
    const done = await until(async () => {
      const d = await delivery(id).catch(() => null); // this test's own reads may fail while it reconnects
      return d?.status === 'succeeded' ? d : undefined;
    }, 20_000);
    expect(done.attempts).toBe(3);
    expect(done.last_attempt_at!.getTime()).toBeGreaterThanOrEqual(second.next_attempt_at!.getTime());
    const after = await bed.fx.sale();
    await until(() => arrivals(after).length === 1);
    expect(new Set(arrivals(id).map((r) => r.headers['x-cw-delivery']))).toEqual(new Set([done._id]));
  });
});
