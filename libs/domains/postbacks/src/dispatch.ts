/**
 * The dispatcher: every worker process runs one, and every one claims and sends due deliveries.
 *
 * - **Claims.** A delivery is claimed by one `findOneAndUpdate` on its id, guarded by its status and
 *   due time (`{status, next_attempt_at}` index): `attempts` + 1, and both `leased_until` and
 *   `next_attempt_at` move to the lease's end (three attempt budgets). The claimed delivery leaves
 *   the due range, so no other dispatcher can claim it; a dispatcher that died leaves it due again
 *   when the lease ends, and another one makes the attempt again under the same delivery id.
 * - **Isolation.** At most POSTBACK_CONFIG_CONCURRENCY attempts to one configuration are in flight
 *   (a slot held in Redis when configured, so across workers; else per process), out of
 *   POSTBACK_CONCURRENCY per process: a receiver that hangs holds its own slots, never the others'.
 *   Attempts are launched into free slots without waiting for slow ones.
 * - **Circuit breaker.** POSTBACK_BREAKER_FAILURES failed attempts in a row pause the configuration
 *   (`paused_until` on it, POSTBACK_BREAKER_PAUSE_MS, doubled by each failed probe up to 32 times).
 *   Its due deliveries then wait (`paused_until` and `next_attempt_at` set on them, not counted as
 *   attempts). When the pause ends, one delivery is sent as the probe (`probe_until` on the
 *   configuration) while the others wait; a success closes the breaker, a failure pauses again.
 * - **Timeouts.** One attempt's budget (POSTBACK_TIMEOUT_MS) covers connect, send, headers and
 *   body; a receiver cannot stretch it (./delivery.ts).
 * - **Retries.** A failed attempt computes the next one's time from the schedule (./retry.ts), calls
 *   `scheduleRetry` (the worker's Agenda slot job) before it writes the outcome, so a crash in
 *   between leaves a wake-up, never a delivery nobody will retry.
 */
import type { Agent } from 'undici';
import type { PostbackConfigDoc } from './data/postback-config.schema';
import type { PostbackDeliveryDoc } from './data/postback-delivery.schema';
import type { Slots } from '@cw/ratelimit';
import { inSpan } from '@cw/telemetry';
import { attemptDelivery, type SaleEventBody } from './delivery';
import { expiresAt } from './retention';
import { MAX_ATTEMPTS, retryDelayMs } from './retry';
import { open } from './secret-box';
import { own, type PostbacksDeps } from './deps';

export type ConfigRow = PostbackConfigDoc & { _id: string };
export type DeliveryRow = PostbackDeliveryDoc & { _id: string };
type Deps = Pick<PostbacksDeps, 'config' | 'data'>;

/**
 * How long a claimed attempt holds its delivery: three attempt budgets (30 s by default), so a
 * live attempt always finishes inside it and a dead worker's attempt is taken over after it.
 */
export const leaseMs = (deps: Pick<PostbacksDeps, 'config'>) => 3 * deps.config.postbackTimeoutMs;

/** Which deliveries a pass claims: first attempts, retries, or retries whose wake-up was lost (overdue by two leases). */
export type PassKind = 'first' | 'retry' | 'overdue';

function dueFilter(deps: Deps, kind: PassKind, now: Date): Record<string, unknown> {
  if (kind === 'first') return { status: 'pending', next_attempt_at: { $lte: now } };
  if (kind === 'retry') return { status: 'failed', next_attempt_at: { $lte: now } };
  return { status: 'failed', next_attempt_at: { $lte: new Date(now.getTime() - 2 * leaseMs(deps)) } };
}

// Opened once per configuration row read (a pass reads each configuration once).
const opened = new WeakMap<ConfigRow, { current: string; previous?: string }>();

function secretsOf(deps: Deps, config: ConfigRow, now: Date): string[] {
  let o = opened.get(config);
  if (!o) {
    o = {
      current: open(deps.config.keys, config.secret as never),
      previous: config.previous_secret ? open(deps.config.keys, config.previous_secret as never) : undefined,
    };
    opened.set(config, o);
  }
  return o.previous && config.previous_valid_until && config.previous_valid_until > now ? [o.current, o.previous] : [o.current];
}

/** Claims delivery `id` if it is still due as `filter` says; the claimed row, or null when another dispatcher has it. */
async function claim(deps: Deps, id: string, filter: Record<string, unknown>, now: Date): Promise<DeliveryRow | null> {
  const until = new Date(now.getTime() + leaseMs(deps));
  return own(deps)
    .PostbackDelivery.findOneAndUpdate(
      { _id: id, ...filter },
      { $set: { leased_until: until, next_attempt_at: until, last_attempt_at: now, updated_at: now, paused_until: null }, $inc: { attempts: 1 } },
      { returnDocument: 'after' },
    )
    .lean<DeliveryRow>();
}

export interface SendOptions {
  timeoutMs?: number;
  /** Schedules a wake-up at `at` for the retry (the worker's Agenda slot job). */
  scheduleRetry?: (at: Date) => Promise<void>;
  /** A test event: one attempt, never retried, never counted by the breaker (a success closes it). */
  test?: boolean;
  /** This attempt is the breaker's probe. */
  probe?: boolean;
}

export interface SendResult {
  status: 'succeeded' | 'failed' | 'dead';
}

/**
 * Makes the claimed attempt, then writes its outcome and the breaker's count: succeeded (body
 * dropped, kept 7 days), failed (the next attempt scheduled), or dead after the last attempt or
 * when the configuration is gone.
 */
export async function send(deps: Deps, agent: Agent, claimed: DeliveryRow, config: ConfigRow | null, opts: SendOptions = {}): Promise<SendResult> {
  // With tracing on: a span in the trace of the request that made the sale event (its traceparent), never the URL.
  return inSpan(
    'postback.deliver',
    claimed.traceparent ?? undefined,
    { 'cw.delivery_id': claimed._id, 'cw.account_id': claimed.publisher_id, 'cw.event': claimed.event, 'cw.attempt': claimed.attempts },
    async (annotate) => {
      const result = await sendOnce(deps, agent, claimed, config, opts);
      annotate('cw.delivery_status', result.status);
      return result;
    },
  );
}

async function sendOnce(deps: Deps, agent: Agent, claimed: DeliveryRow, config: ConfigRow | null, opts: SendOptions): Promise<SendResult> {
  const now = new Date();
  const result = config
    ? await attemptDelivery(
        { url: config.url, method: config.http_method as 'GET' | 'POST', secrets: secretsOf(deps, config, now) },
        JSON.parse(claimed.body) as SaleEventBody,
        claimed._id,
        agent,
        { allowInsecure: deps.config.postbackAllowInsecure, timeoutMs: opts.timeoutMs ?? deps.config.postbackTimeoutMs },
      )
    : { ok: false, error: 'the postback is no longer configured' };
  const done = new Date();
  const dead = !result.ok && (claimed.attempts >= MAX_ATTEMPTS || !config);
  const status = result.ok ? 'succeeded' : dead ? 'dead' : 'failed';
  const retryAt = status === 'failed' && !claimed.test ? new Date(done.getTime() + retryDelayMs(claimed.attempts + 1, deps.config.postbackRetryUnitMs)) : null;
  if (retryAt) await opts.scheduleRetry?.(retryAt);
  await own(deps).PostbackDelivery.updateOne(
    { _id: claimed._id },
    {
      $set: {
        status,
        last_response_status: 'status' in result ? (result.status ?? null) : null,
        last_error: result.ok ? null : (result.error ?? null),
        last_duration_ms: config ? done.getTime() - now.getTime() : null,
        next_attempt_at: retryAt,
        leased_until: null,
        updated_at: done,
        expires_at: expiresAt(deps, status, done),
      },
      ...(result.ok ? { $unset: { body: '' } } : {}),
    },
  );
  if (config && (!opts.test || result.ok)) await breakerOutcome(deps, config, result.ok, !!opts.probe, done);
  return { status };
}

/** The pause after `failures` failures in a row (the first at the threshold). */
export function pauseMs(deps: Pick<PostbacksDeps, 'config'>, failures: number): number {
  const doublings = Math.min(5, Math.max(0, failures - deps.config.postbackBreakerFailures));
  return deps.config.postbackBreakerPauseMs * 2 ** doublings;
}

/** Records an attempt's outcome on the configuration's breaker; updates `config` (the caller's cached row) to match. */
async function breakerOutcome(deps: Deps, config: ConfigRow, ok: boolean, probe: boolean, now: Date): Promise<void> {
  if (ok) {
    if (!probe && !config.consecutive_failures && !config.paused_until) return;
    await own(deps).PostbackConfig.updateOne({ _id: config._id }, { $set: { consecutive_failures: 0, paused_until: null, probe_until: null } });
    Object.assign(config, { consecutive_failures: 0, paused_until: null, probe_until: null });
    return;
  }
  const after = await own(deps)
    .PostbackConfig.findOneAndUpdate(
      { _id: config._id },
      { $inc: { consecutive_failures: 1 }, ...(probe ? { $set: { probe_until: null } } : {}) },
      { returnDocument: 'after', projection: { consecutive_failures: 1, paused_until: 1, probe_until: 1 } },
    )
    .lean<Pick<ConfigRow, 'consecutive_failures' | 'paused_until' | 'probe_until'>>();
  if (!after) return;
  Object.assign(config, after);
  const failures = after.consecutive_failures ?? 0;
  if (failures < deps.config.postbackBreakerFailures || (after.paused_until && after.paused_until > now)) return;
  const until = new Date(now.getTime() + pauseMs(deps, failures));
  const r = await own(deps).PostbackConfig.updateOne(
    { _id: config._id, $or: [{ paused_until: null }, { paused_until: { $lte: now } }] },
    { $set: { paused_until: until } },
  );
  if (r.modifiedCount) {
    config.paused_until = until;
    // Opened now (a pause after a failed probe too): its people are told, at most once a day (@cw/notifications).
    await deps.data.postbacks.breakerOpened(config._id);
  }
}

/** What the breaker says of a configuration now: go, wait until a time, or this attempt may be the probe. */
type Gate = { go: true; probe: boolean } | { go: false; until: Date; paused: boolean };

async function gate(deps: Deps, config: ConfigRow, now: Date): Promise<Gate> {
  if (config.paused_until && config.paused_until > now) return { go: false, until: config.paused_until, paused: true };
  if ((config.consecutive_failures ?? 0) < deps.config.postbackBreakerFailures) return { go: true, probe: false };
  // Half-open: the pause is over; one attempt (the probe) goes, the others wait for its outcome.
  const probeUntil = new Date(now.getTime() + leaseMs(deps));
  const won = await own(deps).PostbackConfig.updateOne(
    {
      _id: config._id,
      consecutive_failures: { $gte: deps.config.postbackBreakerFailures },
      $and: [{ $or: [{ paused_until: null }, { paused_until: { $lte: now } }] }, { $or: [{ probe_until: null }, { probe_until: { $lte: now } }] }],
    },
    { $set: { probe_until: probeUntil } },
  );
  if (won.modifiedCount) {
    config.probe_until = probeUntil;
    return { go: true, probe: true };
  }
  const fresh = await own(deps).PostbackConfig.findById(config._id, { consecutive_failures: 1, paused_until: 1, probe_until: 1 }).lean<ConfigRow>();
  if (fresh) Object.assign(config, fresh);
  if (!fresh || (fresh.consecutive_failures ?? 0) < deps.config.postbackBreakerFailures) return { go: true, probe: false };
  if (fresh.paused_until && fresh.paused_until > now) return { go: false, until: fresh.paused_until, paused: true };
  return { go: false, until: fresh.probe_until && fresh.probe_until > now ? fresh.probe_until : new Date(now.getTime() + 1000), paused: false };
}

export interface DispatcherOptions {
  agent: Agent;
  /** The per-configuration cap's slots (Redis: across workers). */
  slots: Slots;
  scheduleRetry?: (at: Date) => Promise<void>;
  onError?: (err: Error) => void;
}

export interface Dispatcher {
  /**
   * Claims due deliveries of `kind` and launches their attempts into free slots until none is due
   * or `deadline` (epoch ms) passes; does not wait for the attempts. Returns how many it launched.
   */
  pass(kind: PassKind, deadline: number): Promise<number>;
  /** Attempts in flight in this process. */
  inFlight(): number;
  /** Waits for the attempts in flight (a graceful stop). */
  drain(): Promise<void>;
}

const FULL = -1;
type Candidate = { _id: string; publisher_id: string };

export function createDispatcher(deps: Deps, opts: DispatcherOptions): Dispatcher {
  const running = new Map<string, Promise<void>>();
  // Configurations this process knows to be full, paused or probing, and until when (epoch ms, or
  // FULL: until one of its attempts here ends). Claims skip them.
  const blocked = new Map<string, number>();
  const cap = deps.config.postbackConfigConcurrency;

  // Attempts in flight here (claiming or sending), per configuration.
  const perConfig = new Map<string, number>();
  const done = (publisherId: string) => {
    const left = (perConfig.get(publisherId) ?? 1) - 1;
    if (left) perConfig.set(publisherId, left);
    else perConfig.delete(publisherId);
    if (blocked.get(publisherId) === FULL) blocked.delete(publisherId);
  };

  /** Holds the configuration's slot, claims the delivery and sends it; all in the background. */
  const launch = (c: Candidate, filter: Record<string, unknown>, config: ConfigRow | null, probe: boolean) => {
    const pub = c.publisher_id;
    perConfig.set(pub, (perConfig.get(pub) ?? 0) + 1);
    const task = async () => {
      const slot = await opts.slots.hold(`postbacks:${pub}`, cap, leaseMs(deps));
      if (!slot) {
        // Full: skipped until one of its attempts here ends, or briefly when they all run elsewhere.
        if (!blocked.has(pub)) blocked.set(pub, (perConfig.get(pub) ?? 0) > 1 ? FULL : Date.now() + 100);
        if (probe) await releaseProbe(pub);
        return;
      }
      try {
        const row = await claim(deps, c._id, filter, new Date());
        if (!row) {
          // Another dispatcher claimed it first.
          if (probe) await releaseProbe(pub);
          return;
        }
        await send(deps, opts.agent, row, config, { scheduleRetry: opts.scheduleRetry, probe });
        // This process learns of its own breaker changes at once (others at their next pass).
        if (config?.paused_until && config.paused_until.getTime() > Date.now()) blocked.set(pub, config.paused_until.getTime());
        else if (probe) blocked.delete(pub);
      } finally {
        await slot.release();
      }
    };
    const p = task()
      .catch((e: Error) => opts.onError?.(e))
      .finally(() => {
        running.delete(c._id);
        done(pub);
      });
    running.set(c._id, p);
  };

  /** Holds a delivery back until the breaker's pause ends, without counting an attempt. */
  const hold = async (id: string, filter: Record<string, unknown>, until: Date, now: Date) => {
    // A retry's wake-up first: a crash in between leaves a wake-up, never a delivery nobody retries.
    if (filter.status === 'failed') await opts.scheduleRetry?.(until);
    await own(deps).PostbackDelivery.updateOne({ _id: id, ...filter }, { $set: { next_attempt_at: until, paused_until: until, updated_at: now } });
  };
  const releaseProbe = (publisherId: string) => own(deps).PostbackConfig.updateOne({ _id: publisherId }, { $set: { probe_until: null } });

  return {
    inFlight: () => running.size,
    drain: async () => {
      await Promise.allSettled([...running.values()]);
    },
    async pass(kind, deadline) {
      const configs = new Map<string, Promise<ConfigRow | null>>();
      const configOf = (id: string) => {
        let c = configs.get(id);
        if (!c) configs.set(id, (c = own(deps).PostbackConfig.findById(id).lean<ConfigRow>().exec()));
        return c;
      };
      let launched = 0;
      // Room is filled in batches: a query per few finished attempts, not per attempt.
      const batch = Math.max(1, Math.floor(deps.config.postbackConcurrency / 16));
      while (Date.now() < deadline) {
        const room = deps.config.postbackConcurrency - running.size;
        if (room < batch) {
          await Promise.race(running.values());
          continue;
        }
        const now = new Date();
        for (const [id, until] of blocked) if (until !== FULL && until <= now.getTime()) blocked.delete(id);
        const filter = dueFilter(deps, kind, now);
        const skip = [...blocked.keys()];
        const candidates = await own(deps)
          .PostbackDelivery.find({ ...filter, ...(skip.length ? { publisher_id: { $nin: skip } } : {}) }, { _id: 1, publisher_id: 1 })
          .sort({ next_attempt_at: 1 })
          .limit(room + running.size)
          .lean<Candidate[]>();
        // Dispatchers reading the same head claim in different orders, so they rarely race for one delivery.
        for (let i = candidates.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
        }
        let progress = 0;
        for (const c of candidates) {
          if (running.size >= deps.config.postbackConcurrency || Date.now() >= deadline) break;
          if (blocked.has(c.publisher_id) || running.has(c._id)) continue;
          if ((perConfig.get(c.publisher_id) ?? 0) >= cap) {
            blocked.set(c.publisher_id, FULL);
            continue;
          }
          const config = await configOf(c.publisher_id);
          let probe = false;
          if (config) {
            const g = await gate(deps, config, now);
            if (!g.go) {
              progress++;
              if (g.paused) {
                // Out of the due range until the pause ends (the delivery log shows why).
                blocked.set(c.publisher_id, g.until.getTime());
                await hold(c._id, filter, g.until, now);
              } else blocked.set(c.publisher_id, Math.min(g.until.getTime(), Date.now() + 1000)); // a probe is out: ask again soon
              continue;
            }
            probe = g.probe;
          }
          launch(c, filter, config, probe);
          launched++;
          progress++;
        }
        if (!progress) break;
      }
      return launched;
    },
  };
}

/**
 * Claims delivery `id` if it is pending and due, and makes its attempt now (the test event's path:
 * no cap, no breaker gate). Undefined when it is not due or another dispatcher holds it.
 */
export async function attemptNow(deps: Deps, agent: Agent, id: string, opts: SendOptions = {}): Promise<DeliveryRow | undefined> {
  const now = new Date();
  const row = await claim(deps, id, { status: 'pending', next_attempt_at: { $lte: now } }, now);
  if (!row) return undefined;
  const config = await own(deps).PostbackConfig.findById(row.publisher_id).lean<ConfigRow>();
  await send(deps, agent, row, config, opts);
  return (await own(deps).PostbackDelivery.findById(id).lean<DeliveryRow>()) ?? undefined;
}
