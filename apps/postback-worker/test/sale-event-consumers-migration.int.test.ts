/**
 * The migration to the sale events' consumers (docs/decisions/0070-sale-event-consumers.md) on the
 * test engine: a database written the old way (conversions flagged `stats_pending` for the stats
 * and `outbox_since` for the postbacks' outbox, their events in the log, the log's consumers caught
 * up as the old version left them) reaches, after the worker's start migrations, the stats a
 * rebuild from the raw rows gives and one delivery per unpublished event and subscription, under
 * the ids the outbox would have given; the flags are gone, and a second run finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAttributedSale } from '@cw/conversions';
import { appendAccountEvents, consumerCheckpoint } from '@cw/events-feed';
import { deliverLoggedEvents, deliveryIdOf, migrateOutbox } from '@cw/postbacks';
import { countPendingChanges, migrateStatsFlags, readFacts, rebuildStats } from '@cw/stats';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 0 });
});
afterAll(() => deps?.close());

/** Conversions per status as the stats read model counts them. */
async function counted(publisherId: string): Promise<Record<string, number>> {
  const n: Record<string, number> = { pending: 0, approved: 0, declined: 0 };
  for (const f of await readFacts(deps, { publisherId })) if (f.conversion) n[f.conversion.status]! += f.conversion.n;
  return n;
}

describe('the migration to the sale events consumers', () => {
  it('counts the changes the old stats flag held and delivers what the old outbox held, once', async () => {
    const pub = deps.demo!.publishers[0];
    const publisherId = pub.account_id;
    await deps.models.PostbackConfig.updateOne(
      { _id: publisherId },
      {
        $set: {
          url: 'https://hooks.example.com/cw',
          http_method: 'POST',
          event_types: ['sale.created', 'sale.approved'],
          active: true,
          secret: { kid: 'k', iv: 'i', tag: 't', data: 'd' },
          secret_prefix: 'whsec_test',
          created_at: new Date(),
          updated_at: new Date(),
        },
      },
      { upsert: true },
    );
    // Two sales written and counted by the new version, then changed as the old version wrote a change:
    // its event pushed and flagged for the log, the stats (stats_pending) and the outbox (outbox_since).
    const ids: string[] = [];
    for (const n of [1, 2]) {
      const sale = await recordAttributedSale(
        deps,
        501,
        { publisher_id: publisherId, program_id: 1001, campaign_id: 501 },
        { order_id: `MIG-${Date.now()}-${n}`, amount: '40.00', currency: 'EUR', occurred_at: new Date() },
        { channel: 'inquiry' },
      );
      ids.push(sale.conversion._id);
    }
    const before = await counted(publisherId);
    const flagged = { $set: { stats_pending: true, outbox_since: new Date() } };
    // The old write: the status and its event, flagged for every consumer; the port then failed (nothing counted, nothing appended).
    for (const id of ids) {
      const c = await deps.models.Conversion.findById(id).lean();
      expect(c!.status).toBe('pending');
      const event = { _id: `evt_mig${id.slice(-10)}`, type: 'sale.approved', created_at: new Date(), published_at: null };
      await deps.models.Conversion.collection.updateOne(
        { _id: id as never },
        { $set: { status: 'approved', log_pending: true }, $push: { events: event as never } },
      );
      await deps.models.Conversion.collection.updateOne({ _id: id as never }, flagged);
    }
    // The old version's log consumers were caught up: the events are logged, the stats and the postbacks
    // checkpoints at the head (postbacks then skipped sale events: the outbox delivered them).
    await appendAccountEvents(deps, publisherId);
    const head = (await deps.models.EventLogHead.findById(publisherId).lean<{ last_seq: number }>())!.last_seq;
    await deps.models.EventLogHead.updateOne(
      { _id: publisherId },
      { $set: { 'consumed.stats': head, 'consumed.postbacks': head }, $unset: { 'behind.stats': '', 'behind.postbacks': '' } },
    );
    await countPendingChanges(deps);
    expect(await deliverLoggedEvents(deps)).toEqual({ accounts: 0, created: [] });
    // Not counted yet: only the retired flags say so.
    expect(await counted(publisherId)).toEqual(before);

    // The worker's start migrations.
    expect(await migrateStatsFlags(deps)).toBe(2);
    const outbox = await migrateOutbox(deps);
    expect(outbox.conversions).toBeGreaterThanOrEqual(2);

    // The stats: both sales moved to approved, exactly as a rebuild from the raw rows counts them.
    const after = await counted(publisherId);
    expect(after).toEqual({ ...before, pending: before.pending! - 2, approved: before.approved! + 2 });
    expect((await rebuildStats(deps, { publisherId })).cells_changed).toBe(0);
    // The postbacks: one delivery per unpublished event the configuration subscribes to, under the outbox's ids.
    for (const id of ids) {
      const events = (await deps.models.Conversion.findById(id).lean())!.events.filter((e) => e.published_at === null);
      const rows = await deps.models.PostbackDelivery.find({ conversion_id: id }).lean();
      expect(rows.map((d) => String(d._id)).sort()).toEqual(events.map((e) => deliveryIdOf(e._id, publisherId)).sort());
    }
    // The flags are gone; running again, or reading the log again from before their events, makes nothing more.
    expect(
      await deps.models.Conversion.collection.countDocuments({
        _id: { $in: ids as never[] },
        $or: [{ stats_pending: { $exists: true } }, { outbox_since: { $exists: true } }],
      }),
    ).toBe(0);
    expect(await migrateStatsFlags(deps)).toBe(0);
    expect(await migrateOutbox(deps)).toEqual({ conversions: 0, deliveries: 0 });
    const delivered = await deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids } });
    const firstSeq = Math.min(...(await deps.models.SaleEvent.find({ conversion_id: { $in: ids } }, { seq: 1 }).lean()).map((e) => e.seq));
    await deps.models.EventLogHead.updateOne({ _id: publisherId }, { $set: { 'consumed.postbacks': firstSeq - 1, 'behind.postbacks': true } });
    await deliverLoggedEvents(deps);
    expect(await consumerCheckpoint(deps, 'postbacks', publisherId)).toBe(head);
    expect(await deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids } })).toBe(delivered);
  });
});
