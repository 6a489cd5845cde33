/**
 * Deliveries as the publisher sees them: the delivery log (`GET /postback/deliveries/`),
 * redelivery, and the signed test event. Deliveries are made from the events log by
 * ./log-consumer.ts, the dispatcher that sends them is ./dispatch.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Agent } from 'undici';
import { ApiError } from '@cw/errors';
import { WRITERS, type Policy, type Principal } from '@cw/auth';
import { type ConversionRecord } from '@cw/conversions';
import { EVENT_TYPES, saleEventBody } from '@cw/events-feed';
import { useCase, CURSOR_PAGING, pageSizeInput, pageWindow, type InputOf, type ListSort } from '@cw/usecase';
import { attemptNow, type ConfigRow, type DeliveryRow } from './dispatch';
import { deliveryIdOf } from './delivery-id';
import { expiresAt } from './retention';
import { own, type PostbacksDeps } from './deps';

/** Publisher API keys and the portal token list deliveries and send the test event (only the portal token writes the configuration). */
const DELIVERIES_POLICY: Policy = { budget: 'postbacks', credentials: ['api_key', 'portal_token'], scope: 'postbacks:read' };
/** In the portal, analysts read; owners and developers send tests and redeliver. */
const TEST_POSTBACK_POLICY: Policy = { budget: 'postbacks', credentials: ['api_key', 'portal_token'], roles: WRITERS, scope: 'postbacks:read' };
/** Redelivery sends real events again: live keys and the portal token only. */
const REDELIVER_POLICY: Policy = {
  budget: 'postbacks',
  credentials: ['api_key', 'portal_token'],
  refuseKinds: ['test', 'sandbox', 'read_only'],
  refuseDetail: 'Only live keys redeliver postbacks.',
  roles: WRITERS,
};

export const DELIVERIES_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'dead'] },
    event: { type: 'string', enum: [...EVENT_TYPES] },
    ...CURSOR_PAGING,
    page_size: pageSizeInput(200),
  },
} as const;

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
    last_duration_ms: d.last_duration_ms ?? null,
    next_attempt_at: d.next_attempt_at ?? null,
    paused_until: d.paused_until && d.paused_until > new Date() ? d.paused_until : null,
    created_at: d.created_at,
  };
}

/** Newest first (the index `{publisher_id, created_at: -1, _id: 1}`). */
const LIST_ORDER: ListSort = [
  ['created_at', -1],
  ['_id', 1],
];

export const listDeliveries = useCase(
  DELIVERIES_POLICY,
  async function listDeliveries(deps: PostbacksDeps, principal: Principal, input: InputOf<typeof DELIVERIES_INPUT>) {
    const filter: Record<string, unknown> = { publisher_id: principal.publisher._id };
    if (input.status) filter.status = input.status;
    if (input.event) filter.event = input.event;
    const w = pageWindow({ list: 'deliveries', account: principal.publisher._id, secret: deps.config.secretKey }, LIST_ORDER, input);
    const rows = await own(deps)
      .PostbackDelivery.find(w.filter(filter), { body: 0 })
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<DeliveryRow[]>();
    return w.envelope(rows, (page) => page.map(deliveryView));
  },
  DELIVERIES_INPUT,
);

/** Sends a failed or dead delivery again, under the same delivery id, as soon as a worker picks it up. */
export const redeliver = useCase(REDELIVER_POLICY, async function redeliver(deps: PostbacksDeps, principal: Principal, id: string) {
  return redeliverOf(deps, principal.publisher._id, id);
});

/** A failed or dead delivery of an account sent again under its id (the account's people, or an operator). */
export async function redeliverOf(deps: Pick<PostbacksDeps, 'data' | 'config'>, publisherId: string, id: string) {
  const now = new Date();
  const d = await own(deps)
    .PostbackDelivery.findOneAndUpdate(
      { _id: id, publisher_id: publisherId, status: { $in: ['failed', 'dead'] } },
      { $set: { status: 'pending', next_attempt_at: now, paused_until: null, updated_at: now, expires_at: expiresAt(deps, 'pending', now) } },
      { returnDocument: 'after' },
    )
    .lean<DeliveryRow>();
  if (d) return deliveryView(d);
  const exists = await own(deps).PostbackDelivery.findOne({ _id: id, publisher_id: publisherId }, { status: 1 }).lean();
  if (!exists) throw new ApiError({ code: 'not_found', detail: `No delivery ${id}.` });
  throw new ApiError({ code: 'invalid_transition', detail: `Only failed or dead deliveries are redelivered; this one is ${exists.status}.` });
}

/** A signed test event (shaped like sale.created, marked test) sent now through the same path; answers its outcome. */
export const sendTestEvent = useCase(
  TEST_POSTBACK_POLICY,
  async function sendTestEvent(deps: PostbacksDeps, principal: Principal, agent: Agent, opts: { timeoutMs?: number } = {}) {
    const config = await own(deps).PostbackConfig.findById(principal.publisher._id).lean<ConfigRow>();
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
    await own(deps).PostbackDelivery.create({
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
      expires_at: expiresAt(deps, 'pending', now),
    });
    // The answer waits for the outcome a few seconds at most.
    const after = await attemptNow(deps, agent, id, { test: true, timeoutMs: opts.timeoutMs ?? Math.min(5_000, deps.config.postbackTimeoutMs) });
    return { delivery_id: id, ...(after ? deliveryView(after) : {}) };
  },
);
