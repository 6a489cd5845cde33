/**
 * The conversions' outbox, retired (docs/decisions/0070-sale-event-consumers.md): before the
 * postbacks read sale events from the events log, each status change flagged its conversion
 * (`outbox_since`) and a pump made deliveries of its unpublished events. A database from then may
 * still hold flagged conversions whose events the pump had not published when the new version
 * started, and whose events the log's `postbacks` checkpoint had already passed (that consumer
 * then skipped sale events). This migration (the worker's start, once; `postback:backfill`) makes
 * each such event its deliveries, under the ids the pump would have given them
 * (`deliveryIdOf(event, configuration)`: one the pump or the log's consumer made already is not
 * made again), then unflags the conversion. Safe to repeat and to run on several workers at once.
 */
import { saleEventBody } from '@cw/events-feed';
import type { PostbackConfigDoc } from './data/postback-config.schema';
import { deliveryIdOf } from './delivery-id';
import { expiresAt } from './retention';
import { own, type PostbacksDeps } from './deps';

type ConfigRow = PostbackConfigDoc & { _id: string };

const BATCH = 500;

/** Makes the deliveries of the flagged conversions' unpublished sale events and unflags them; answers how many conversions and deliveries. */
export async function migrateOutbox(deps: PostbacksDeps, now = new Date()): Promise<{ conversions: number; deliveries: number }> {
  let conversions = 0;
  let deliveries = 0;
  for (;;) {
    const rows = await deps.data.conversions.legacyOutbox(BATCH);
    if (!rows.length) break;
    const configs = new Map(
      (
        await own(deps)
          .PostbackConfig.find({ _id: { $in: [...new Set(rows.map((c) => c.publisher_id))] } })
          .lean<ConfigRow[]>()
      ).map((c) => [c._id, c]),
    );
    const names = await deps.data.programs.merchantNames(rows.flatMap((c) => (c.campaign_id !== undefined && c.campaign_id !== null ? [c.campaign_id] : [])));
    const upserts: Array<{ id: string; doc: Record<string, unknown> }> = [];
    for (const c of rows) {
      const config = configs.get(c.publisher_id);
      if (!config?.active) continue;
      const paused = config.paused_until && config.paused_until > now ? config.paused_until : null;
      for (const ev of c.events.filter((e) => e.published_at === null && config.event_types.includes(e.type)))
        upserts.push({
          id: deliveryIdOf(ev._id, config._id),
          doc: {
            publisher_id: c.publisher_id,
            event_id: ev._id,
            event: ev.type,
            conversion_id: c._id,
            body: JSON.stringify(saleEventBody(c, ev, c.campaign_id !== undefined ? names.get(c.campaign_id) : undefined)),
            ...(ev.traceparent ? { traceparent: ev.traceparent } : {}),
            status: 'pending',
            attempts: 0,
            next_attempt_at: paused ?? now,
            paused_until: paused,
            created_at: now,
            updated_at: now,
            expires_at: expiresAt(deps, 'pending', now),
          },
        });
    }
    if (upserts.length) {
      const r = await own(deps).PostbackDelivery.bulkWrite(
        upserts.map((u) => ({ updateOne: { filter: { _id: u.id }, update: { $setOnInsert: u.doc }, upsert: true } })),
        { ordered: false },
      );
      deliveries += r.upsertedCount ?? 0;
    }
    // Only after the deliveries exist: a crash in between repeats the upserts above, which are no-ops.
    await deps.data.conversions.legacyOutboxDone(rows.map((c) => c._id));
    conversions += rows.length;
  }
  return { conversions, deliveries };
}
