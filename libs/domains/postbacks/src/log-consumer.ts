/**
 * Postbacks as a consumer of the events log (@cw/events-feed, checkpoint `postbacks`): every event
 * that is not a sale event (`payout.paid`, `payout.failed`, and whatever other domains add through
 * the feed's event-source port) becomes one delivery per subscribed configuration, with the stable
 * id `deliveryIdOf(event, configuration)` and the event's logged body, then goes out through the
 * same dispatcher as sale events (signing, `X-CW-Event`, retries, breaker, delivery log). Sale
 * events are skipped by the log's query: they keep the conversions' outbox (./outbox.ts).
 *
 * Exactly once: a crash after the upserts and before the checkpoint moved reads those events again
 * and upserts the same ids (`$setOnInsert`: nothing doubled); the checkpoint moves only after the
 * deliveries exist (nothing lost). An event reaches the configuration as it is when the event is
 * read: subscribed then, delivered; not subscribed then, never (a later subscription does not
 * replay older events, as with sale events).
 */
import { accountsBehind, consumeAccountEvents, type ConsumedEvent } from '@cw/events-feed';
import type { ConfigRow } from './dispatch';
import { deliveryIdOf } from './outbox';
import { expiresAt } from './retention';
import { own, type PostbacksDeps } from './deps';

type Deps = Pick<PostbacksDeps, 'data' | 'config'>;

/** Sale events: delivered from the conversions' outbox, skipped here. */
const SALE_EVENTS = /^sale\./;

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
 * read, their events that are not sale events made deliveries. Returns the deliveries created.
 */
export async function deliverLoggedEvents(deps: Deps, opts: { accounts?: number; now?: Date } = {}): Promise<{ accounts: number; created: string[] }> {
  const accounts = await accountsBehind(deps, 'postbacks', opts.accounts ?? 1000);
  const created: string[] = [];
  for (const publisherId of accounts)
    await consumeAccountEvents(deps, 'postbacks', publisherId, (events) => deliverEvents(deps, publisherId, events, opts.now ?? new Date(), created), {
      except: SALE_EVENTS,
    });
  return { accounts: accounts.length, created };
}
