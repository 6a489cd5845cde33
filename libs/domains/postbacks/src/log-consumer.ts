/**
 * Postbacks as a consumer of the events log (@cw/events-feed, checkpoint `postbacks`): every event
 * of an account (sale events, `payout.paid`, `payout.failed`, and whatever other domains add
 * through the feed's event-source port) becomes one delivery per subscribed configuration, with
 * the stable id `deliveryIdOf(event, configuration)` and the event's logged body, then goes out
 * through the dispatcher (signing, `X-CW-Event`, retries, breaker, delivery log). A sale event's
 * delivery also names its conversion and, with tracing on, the traceparent of the request that made
 * it (its attempts are spans of that trace).
 *
 * Exactly once: a crash after the upserts and before the checkpoint moved reads those events again
 * and upserts the same ids (`$setOnInsert`: nothing doubled); the checkpoint moves only after the
 * deliveries exist (nothing lost). An event reaches the configuration as it is when the event is
 * read: subscribed then, delivered; not subscribed then, never (a later subscription does not
 * replay older events). The sale events of databases from before this consumer read them (the
 * conversions' outbox) are delivered once by the migration (./outbox-migration.ts), under the same ids.
 */
import { accountsBehind, consumeAccountEvents, type ConsumedEvent } from '@cw/events-feed';
import type { ConfigRow } from './dispatch';
import { deliveryIdOf } from './delivery-id';
import { expiresAt } from './retention';
import { own, type PostbacksDeps } from './deps';

type Deps = Pick<PostbacksDeps, 'data' | 'config'>;

async function deliverEvents(deps: Deps, publisherId: string, events: ConsumedEvent[], now: Date, created: string[]): Promise<void> {
  const config = await own(deps).PostbackConfig.findById(publisherId).lean<ConfigRow>();
  if (!config?.active) return;
  const wanted = events.filter((e) => config.event_types.includes(e.type));
  if (!wanted.length) return;
  // A configuration whose breaker is open gets its new deliveries paused until then (the log shows it).
  const paused = config.paused_until && config.paused_until > now ? config.paused_until : null;
  const upserts = wanted.map((e) => {
    const body = JSON.parse(e.body) as { id: string };
    return {
      id: deliveryIdOf(body.id, config._id),
      doc: {
        publisher_id: publisherId,
        event_id: body.id,
        event: e.type,
        ...(e.conversion_id ? { conversion_id: e.conversion_id } : {}),
        ...(e.traceparent ? { traceparent: e.traceparent } : {}),
        body: e.body,
        status: 'pending',
        attempts: 0,
        next_attempt_at: paused ?? now,
        paused_until: paused,
        created_at: now,
        updated_at: now,
        expires_at: expiresAt(deps, 'pending', now),
      },
    };
  });
  const r = await own(deps).PostbackDelivery.bulkWrite(
    upserts.map((u) => ({ updateOne: { filter: { _id: u.id }, update: { $setOnInsert: u.doc }, upsert: true } })),
    { ordered: false },
  );
  for (const i of Object.keys(r.upsertedIds ?? {})) created.push(upserts[Number(i)]!.id);
}

/**
 * One pass (every worker's dispatch round): the accounts whose log has events postbacks have not
 * read, their events made deliveries. Returns the accounts read and the deliveries created.
 */
export async function deliverLoggedEvents(deps: Deps, opts: { accounts?: number; now?: Date } = {}): Promise<{ accounts: number; created: string[] }> {
  const accounts = await accountsBehind(deps, 'postbacks', opts.accounts ?? 1000);
  const created: string[] = [];
  for (const publisherId of accounts)
    await consumeAccountEvents(deps, 'postbacks', publisherId, (events) => deliverEvents(deps, publisherId, events, opts.now ?? new Date(), created));
  return { accounts: accounts.length, created };
}
