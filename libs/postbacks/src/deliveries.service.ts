/**
 * Deliveries: the outbox pump turns each pending sale event into one delivery per (event,
 * configuration) with a stable id, then marks the event published (a crash in between only
 * repeats an upsert of the same id: nothing lost, nothing doubled). Due deliveries are claimed
 * one attempt at a time (a lease, `leased_until`, so two workers never make the same
 * attempt), sent, and rescheduled on the retry schedule until they succeed or are dead: the first
 * attempt goes out from the dispatch pass, every retry from its own scheduled job.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Agent } from 'undici';
import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import type { PostbackConfigDoc, PostbackDeliveryDoc } from '@cw/db';
import { saleEventBody, type ConversionRecord } from '@cw/conversions';
import { PAGE_INPUT, pageOf, pageSizeInput, skipFor, type InputOf, type UseCaseDeps } from '@cw/usecase';
import { attemptDelivery, type SaleEventBody } from './delivery';

export { saleEventBody };
import { MAX_ATTEMPTS, retryDelayMs } from './retry';
import { open } from './secret-box';

/**
 * How long a claimed attempt holds its delivery: three attempt budgets (30 s by default), so a
 * live attempt always finishes inside it and a dead worker's attempt is taken over after it.
 */
export const leaseMs = (deps: Pick<UseCaseDeps, 'config'>) => 3 * deps.config.postbackTimeoutMs;

type ConfigRow = PostbackConfigDoc & { _id: string };
type DeliveryRow = PostbackDeliveryDoc & { _id: string };

/** Publisher API keys and the portal token list deliveries and send the test event (only the portal token writes the configuration). */
export const DELIVERIES_POLICY: Policy = { budget: 'postbacks', credentials: ['api_key', 'portal_token'] };
export const TEST_POSTBACK_POLICY: Policy = { budget: 'postbacks', credentials: ['api_key', 'portal_token'] };
/** Redelivery sends real events again: live keys and the portal token only. */
export const REDELIVER_POLICY: Policy = {
  budget: 'postbacks',
  credentials: ['api_key', 'portal_token'],
  refuseKinds: ['test', 'sandbox', 'read_only'],
  refuseDetail: 'Only live keys redeliver postbacks.',
};

export const DELIVERIES_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'dead'] },
    event: { type: 'string', enum: ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'] },
    page: PAGE_INPUT,
    page_size: pageSizeInput(200),
  },
} as const;

export const deliveryIdOf = (eventId: string, configId: string) =>
  `dlv_${createHash('sha256').update(`${eventId}\u0000${configId}`).digest('base64url').slice(0, 22)}`;

/**
 * One pass of the outbox pump, in two bulk writes: upsert one delivery per pending event and
 * subscribed configuration, then mark those events published. Returns the ids it created.
 */
export async function publishPendingEvents(deps: UseCaseDeps, opts: { limit?: number; now?: Date } = {}): Promise<string[]> {
  const now = opts.now ?? new Date();
  const rows = await deps.models.Conversion.find({ 'events.published_at': null, events: { $elemMatch: { published_at: null } } })
    .limit(opts.limit ?? 1000)
    .lean<ConversionRecord[]>();
  if (!rows.length) return [];
  const publishers = [...new Set(rows.map((c) => c.publisher_id))];
  const configs = new Map((await deps.models.PostbackConfig.find({ _id: { $in: publishers } }).lean<ConfigRow[]>()).map((c) => [c._id, c]));
  const names = await deps.repos.merchants.namesOf(rows.flatMap((c) => (c.campaign_id !== undefined && c.campaign_id !== null ? [c.campaign_id] : [])));
  const upserts: Array<{ id: string; doc: Record<string, unknown> }> = [];
  const published: Array<{ conversion: string; event: string }> = [];
  for (const c of rows) {
    const config = configs.get(c.publisher_id);
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
            status: 'pending',
            attempts: 0,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          },
        });
      }
      published.push({ conversion: c._id, event: ev._id });
    }
  }
  const created: string[] = [];
  if (upserts.length) {
    const r = await deps.models.PostbackDelivery.bulkWrite(
      upserts.map((u) => ({ updateOne: { filter: { _id: u.id }, update: { $setOnInsert: u.doc }, upsert: true } })),
      { ordered: false },
    );
    for (const i of Object.keys(r.upsertedIds ?? {})) created.push(upserts[Number(i)].id);
  }
  // Only after the deliveries exist: a crash in between repeats the upserts above, which are no-ops.
  await deps.models.Conversion.bulkWrite(
    published.map((p) => ({ updateOne: { filter: { _id: p.conversion, 'events._id': p.event }, update: { $set: { 'events.$.published_at': now } } } })),
    { ordered: false },
  );
  return created;
}

function secretsOf(deps: UseCaseDeps, config: ConfigRow, now: Date): string[] {
  const secrets = [open(deps.config.keys, config.secret as never)];
  if (config.previous_secret && config.previous_valid_until && config.previous_valid_until > now)
    secrets.push(open(deps.config.keys, config.previous_secret as never));
  return secrets;
}

export interface AttemptOptions {
  now?: Date;
  timeoutMs?: number;
  /** One read of each configuration per dispatch pass (the caller's cache), else one per attempt. */
  configs?: Map<string, Promise<ConfigRow | null>>;
  /**
   * Make attempt number `attempt` exactly (a scheduled retry): claimed only while the delivery has
   * made attempt - 1, whatever its due time, so a late or early job and a sweep never both send it.
   */
  attempt?: number;
  /**
   * Schedules the next attempt (the worker's Agenda job). Called before the outcome is written, so a
   * crash in between leaves a scheduled retry, never a delivery nobody will retry.
   */
  scheduleRetry?: (deliveryId: string, attempt: number, at: Date) => Promise<void>;
}

/**
 * Claims and makes the next attempt of a delivery. Returns undefined when it is not due (or not at
 * the expected attempt) or another worker holds it. Test deliveries get one attempt.
 */
export async function attemptDue(deps: UseCaseDeps, agent: Agent, id: string, opts: AttemptOptions = {}): Promise<DeliveryRow | undefined> {
  const now = opts.now ?? new Date();
  const claimable: Record<string, unknown> =
    opts.attempt !== undefined ? { attempts: opts.attempt - 1, status: 'failed' } : { status: { $in: ['pending', 'failed'] }, next_attempt_at: { $lte: now } };
  const claimed = await deps.models.PostbackDelivery.findOneAndUpdate(
    { _id: id, ...claimable, $or: [{ leased_until: null }, { leased_until: { $lte: now } }] },
    { $set: { leased_until: new Date(now.getTime() + leaseMs(deps)), last_attempt_at: now, updated_at: now }, $inc: { attempts: 1 } },
    { returnDocument: 'after' },
  ).lean<DeliveryRow>();
  if (!claimed) return undefined;
  let pending = opts.configs?.get(claimed.publisher_id);
  if (!pending) {
    pending = deps.models.PostbackConfig.findById(claimed.publisher_id).lean<ConfigRow>().exec();
    opts.configs?.set(claimed.publisher_id, pending);
  }
  const config = await pending;
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
  if (retryAt) await opts.scheduleRetry?.(id, claimed.attempts + 1, retryAt);
  return (await deps.models.PostbackDelivery.findOneAndUpdate(
    { _id: id },
    {
      $set: {
        status,
        last_response_status: 'status' in result ? (result.status ?? null) : null,
        last_error: result.ok ? null : (result.error ?? null),
        next_attempt_at: retryAt,
        leased_until: null,
        updated_at: done,
      },
    },
    { returnDocument: 'after' },
  ).lean<DeliveryRow>())!;
}

/**
 * Deliveries to attempt now without a scheduled job: first attempts (pending and due, including a
 * redelivery and an attempt whose worker died after its lease), and retries whose job is lost
 * (failed and overdue by more than two leases).
 */
export async function dueDeliveries(deps: UseCaseDeps, limit = 200, now = new Date()): Promise<string[]> {
  const rows = await deps.models.PostbackDelivery.find(
    {
      $or: [
        { status: 'pending', next_attempt_at: { $lte: now }, $or: [{ leased_until: null }, { leased_until: { $lte: now } }] },
        {
          status: 'failed',
          next_attempt_at: { $lte: new Date(now.getTime() - 2 * leaseMs(deps)) },
          $or: [{ leased_until: null }, { leased_until: { $lte: now } }],
        },
      ],
    },
    { _id: 1 },
  )
    .sort({ next_attempt_at: 1 })
    .limit(limit)
    .lean();
  return rows.map((d) => String(d._id));
}

export function deliveryView(d: DeliveryRow) {
  return {
    id: d._id,
    event: d.event,
    conversion_id: d.conversion_id ?? null,
    test: d.test ?? false,
    status: d.status,
    attempts: d.attempts,
    last_response_status: d.last_response_status ?? null,
    last_error: d.last_error ?? null,
    last_attempt_at: d.last_attempt_at ?? null,
    next_attempt_at: d.next_attempt_at ?? null,
    created_at: d.created_at,
  };
}

export async function listDeliveries(deps: UseCaseDeps, principal: Principal, input: InputOf<typeof DELIVERIES_INPUT>) {
  const filter: Record<string, unknown> = { publisher_id: principal.publisher._id };
  if (input.status) filter.status = input.status;
  if (input.event) filter.event = input.event;
  const rows = await deps.models.PostbackDelivery.find(filter, { body: 0 })
    .sort({ created_at: -1, _id: 1 })
    .skip(skipFor(input.page, input.page_size))
    .limit(input.page_size + 1)
    .lean<DeliveryRow[]>();
  return pageOf(rows.map(deliveryView), input);
}

/** Sends a failed or dead delivery again, under the same delivery id, as soon as a worker picks it up. */
export async function redeliver(deps: UseCaseDeps, principal: Principal, id: string) {
  const now = new Date();
  const d = await deps.models.PostbackDelivery.findOneAndUpdate(
    { _id: id, publisher_id: principal.publisher._id, status: { $in: ['failed', 'dead'] } },
    { $set: { status: 'pending', next_attempt_at: now, updated_at: now } },
    { returnDocument: 'after' },
  ).lean<DeliveryRow>();
  if (d) return deliveryView(d);
  const exists = await deps.models.PostbackDelivery.findOne({ _id: id, publisher_id: principal.publisher._id }, { status: 1 }).lean();
  if (!exists) throw new ApiError({ code: 'not_found', detail: `No delivery ${id}.` });
  throw new ApiError({ code: 'invalid_transition', detail: `Only failed or dead deliveries are redelivered; this one is ${exists.status}.` });
}

/** A signed test event (shaped like sale.created, marked test) sent now through the same path; answers its outcome. */
export async function sendTestEvent(deps: UseCaseDeps, principal: Principal, agent: Agent, opts: { timeoutMs?: number } = {}) {
  const config = await deps.models.PostbackConfig.findById(principal.publisher._id).lean<ConfigRow>();
  if (!config) throw new ApiError({ code: 'not_found', detail: 'No postback is configured: create one in the portal first.' });
  const now = new Date();
  const eventId = `evt_test_${randomBytes(9).toString('base64url')}`;
  const sample = {
    _id: 'cnv_test',
    publisher_id: principal.publisher._id,
    program_id: 0,
    campaign_id: 0,
    click_id: 'clk_test',
    subid: 'test',
    status: 'pending',
    sale_amount: '100.00',
    commission: '8.00',
    currency: 'EUR',
    occurred_at: now,
    reversed: false,
    paid: false,
    source: 'v1',
    events: [],
    created_at: now,
    updated_at: now,
  } as unknown as ConversionRecord;
  const id = deliveryIdOf(eventId, config._id);
  await deps.models.PostbackDelivery.create({
    _id: id,
    publisher_id: principal.publisher._id,
    event_id: eventId,
    event: 'sale.created',
    test: true,
    body: JSON.stringify(saleEventBody(sample, { _id: eventId, type: 'sale.created', created_at: now }, 'Test merchant', true)),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
  // The answer waits for the outcome a few seconds at most.
  const after = await attemptDue(deps, agent, id, { now, timeoutMs: opts.timeoutMs ?? Math.min(5_000, deps.config.postbackTimeoutMs) });
  return { delivery_id: id, ...(after ? deliveryView(after) : {}) };
}
