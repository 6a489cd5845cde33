/**
 * The outbox pump: every pending sale event becomes one delivery per (event, configuration), with a
 * stable id, then the event is marked published (a crash in between only repeats an upsert of the
 * same id: nothing lost, nothing doubled).
 *
 * Pending conversions are found through their own index: a status change sets `outbox_since` (the
 * oldest unpublished event's time) in the update that pushes the event (libs/domains/conversions
 * lifecycle), and the index on it holds only such conversions, oldest first. Every worker runs the
 * pump; a pump claims the rows it read (`outbox_claim`, until a lease's end) before publishing
 * them, so two pumps never work on the same conversions, and a pump that died is taken over after
 * its lease.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PostbackConfigDoc } from './data/postback-config.schema';
import { saleEventBody } from '@cw/events-feed';
import { leaseMs } from './dispatch';
import { expiresAt } from './retention';
import { own, type PostbacksDeps } from './deps';

type ConfigRow = PostbackConfigDoc & { _id: string };

/** Conversions one pump step takes. */
export const OUTBOX_BATCH = 1000;

export const deliveryIdOf = (eventId: string, configId: string) =>
  `dlv_${createHash('sha256').update(`${eventId}\u0000${configId}`).digest('base64url').slice(0, 22)}`;

/**
 * One step of the outbox pump: claims up to `limit` pending conversions (oldest event first), upserts
 * one delivery per pending event and subscribed configuration, marks those events published and
 * takes the conversions out of the outbox (unless another event arrived meanwhile). Returns how many
 * conversions it took and the ids of the deliveries it created.
 */
export async function publishPendingEvents(deps: PostbacksDeps, opts: { limit?: number; now?: Date } = {}): Promise<{ taken: number; created: string[] }> {
  const now = opts.now ?? new Date();
  const claim = randomBytes(9).toString('base64url');
  const rows = await deps.data.conversions.claimOutbox(claim, opts.limit ?? OUTBOX_BATCH, new Date(now.getTime() + leaseMs(deps)), now);
  if (!rows.length) return { taken: 0, created: [] };
  const publishers = [...new Set(rows.map((c) => c.publisher_id))];
  const configs = new Map(
    (
      await own(deps)
        .PostbackConfig.find({ _id: { $in: publishers } })
        .lean<ConfigRow[]>()
    ).map((c) => [c._id, c]),
  );
  const names = await deps.data.programs.merchantNames(rows.flatMap((c) => (c.campaign_id !== undefined && c.campaign_id !== null ? [c.campaign_id] : [])));
  const upserts: Array<{ id: string; doc: Record<string, unknown> }> = [];
  const published: Array<{ conversion: string; event: string }> = [];
  for (const c of rows) {
    const config = configs.get(c.publisher_id);
    // A configuration whose breaker is open gets its new deliveries paused until then (the log shows it).
    const paused = config?.paused_until && config.paused_until > now ? config.paused_until : null;
    for (const ev of c.events.filter((e) => e.published_at === null)) {
      if (config && config.active && config.event_types.includes(ev.type)) {
        upserts.push({
          id: deliveryIdOf(ev._id, config._id),
          doc: {
            publisher_id: c.publisher_id,
            event_id: ev._id,
            event: ev.type,
            conversion_id: c._id,
            body: JSON.stringify(saleEventBody(c, ev, names.get(c.campaign_id!))),
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
      published.push({ conversion: c._id, event: ev._id });
    }
  }
  const created: string[] = [];
  if (upserts.length) {
    const r = await own(deps).PostbackDelivery.bulkWrite(
      upserts.map((u) => ({ updateOne: { filter: { _id: u.id }, update: { $setOnInsert: u.doc }, upsert: true } })),
      { ordered: false },
    );
    for (const i of Object.keys(r.upsertedIds ?? {})) created.push(upserts[Number(i)]!.id); // indexes of this batch's upserts
  }
  // Only after the deliveries exist: a crash in between repeats the upserts above, which are no-ops.
  await deps.data.conversions.publishedOutbox(claim, rows, published, now);
  return { taken: rows.length, created };
}
