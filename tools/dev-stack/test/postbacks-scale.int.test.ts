/**
 * Postback delivery that grows with its workers and keeps bad receivers from hurting good ones:
 * two worker processes sharing the work (one SIGKILLed mid-pass), a hanging receiver beside a
 * healthy one, the circuit breaker, outbox pumps running side by side, bounded retry jobs, and
 * retention by outcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendPendingEvents } from '@cw/events-feed';
import { deliverLoggedEvents } from '@cw/postbacks';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import {
  conversionOf,
  faultBed,
  postbackFixture,
  subidOf,
  startReceiver,
  until,
  type FaultBed,
  type PostbackFixture,
  type Receiver,
} from './support/postback-harness';

const UNIT = 50; // the schedule's "minute", in ms
const TIMEOUT = 1000; // one attempt's budget; the lease on a claimed attempt is three of these
const WORKER_MAIN = fileURLToPath(new URL('../../../apps/postback-worker/src/main.ts', import.meta.url));
const DAY = 86_400_000;

let bed: FaultBed;
// A second publisher whose receiver a test makes hang or fail.
let other: Receiver;
let otherFx: PostbackFixture;
beforeAll(async () => {
  bed = await faultBed({ unitMs: UNIT, timeoutMs: TIMEOUT });
  other = await startReceiver();
  otherFx = await postbackFixture(bed.deps, other.url, 1);
});
afterEach(async () => {
  await bed.reset();
  other.behave = () => 'ok';
  // Each test starts with no delivery waiting and every breaker closed.
  await bed.deps.models.PostbackDelivery.deleteMany({});
  await bed.deps.models.PostbackConfig.updateMany({}, { $set: { consecutive_failures: 0, paused_until: null, probe_until: null } });
});
afterAll(async () => {
  await otherFx?.close();
  await other?.close();
  await bed?.close();
});

const delivery = (conversionId: string) => bed.deps.models.PostbackDelivery.findOne({ conversion_id: conversionId }).lean();
const arrivals = (r: Receiver, conversionId: string) => r.received.filter((x) => conversionOf(x.body) === conversionId);

function startWorkerProcess(env: Record<string, string>): { child: ChildProcess; stderr: () => string; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      MONGODB_URI: bed.deps.tdb.uri,
      PORT: '0',
      // Its one info line ("listening", after the worker started) tells the test it is running.
      LOG_LEVEL: 'info',
      REDIS_URL: '',
      POSTBACK_RETRY_UNIT_MS: String(UNIT),
      POSTBACK_TIMEOUT_MS: String(TIMEOUT),
      // The receivers are local (http on 127.0.0.1), as the bed's own deps allow.
      POSTBACK_ALLOW_INSECURE: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const ready = new Promise<void>((ok) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (out.includes('postback-worker listening')) ok();
    });
  });
  return { child, stderr: () => stderr, ready };
}

describe('postback delivery at scale', () => {
  it(
    'two worker processes both dispatch; one SIGKILLed mid-pass loses nothing and sends nothing twice but what it had in flight',
    { timeout: 90_000 },
    async () => {
      // Answers take 150 ms, so attempts overlap; each process may have 4 in flight.
      bed.receiver.behave = () => ({ delayMs: 150 });
      bed.receiver.maxOpen = 0;
      const env = { POSTBACK_CONCURRENCY: '4', POSTBACK_CONFIG_CONCURRENCY: '4' };
      const a = startWorkerProcess(env);
      const b = startWorkerProcess(env);
      try {
        const dead = (w: { child: ChildProcess; stderr: () => string }) =>
          new Promise((_, no) => w.child.once('exit', () => no(new Error(`worker exited: ${w.stderr()}`))));
        // Both running before the sales come (on a loaded machine one process may start seconds
        // after the other, and the first would send everything alone), then the sales in bursts.
        await Promise.race([Promise.all([a.ready, b.ready]), dead(a), dead(b)]);
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) ids.push(...(await Promise.all(Array.from({ length: 10 }, () => bed.fx.sale()))));
        await Promise.race([until(() => bed.receiver.received.length >= 20, 30_000), dead(a), dead(b)]);
        a.child.kill('SIGKILL');
        await new Promise((ok) => a.child.once('exit', ok));
        const killedAt = Date.now();
        // What was claimed and not finished when it died: only those may be sent again.
        const heldAtKill = new Set(
          (await bed.deps.models.PostbackDelivery.find({ conversion_id: { $in: ids }, leased_until: { $gt: new Date() } }, { _id: 1 }).lean()).map((d) =>
            String(d._id),
          ),
        );
        await until(
          async () => (await bed.deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids }, status: 'succeeded' })) === ids.length,
          60_000,
          100,
        );
        // More attempts were open at once than one process may have: both processes dispatched.
        expect(bed.receiver.maxOpen).toBeGreaterThan(4);
        const byDelivery = new Map<string, number[]>();
        for (const r of bed.receiver.received.filter((x) => ids.includes(conversionOf(x.body))))
          byDelivery.set(String(r.headers['x-cw-delivery']), [...(byDelivery.get(String(r.headers['x-cw-delivery'])) ?? []), r.at]);
        expect(byDelivery.size).toBe(ids.length); // nothing lost
        const twice = [...byDelivery].filter(([, at]) => at.length > 1);
        for (const [id, at] of twice) {
          expect(at).toHaveLength(2);
          expect(heldAtKill.has(id)).toBe(true); // the killed process's attempt, taken over after its lease
          expect(at[0]).toBeLessThan(killedAt);
        }
        expect(twice.length).toBeLessThanOrEqual(4);
        for (const id of ids) expect(arrivals(bed.receiver, id).every((r) => bed.fx.verify(r).conversion.id === id)).toBe(true);
      } finally {
        for (const w of [a, b]) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      }
    },
  );

  it("a receiver that hangs on every attempt holds only its own slots: the healthy receiver's deliveries go out at once", { timeout: 90_000 }, async () => {
    other.behave = () => 'hang';
    other.maxOpen = 0;
    const hanging: string[] = [];
    for (let i = 0; i < 30; i++) hanging.push(await otherFx.sale());
    // A worker process: 16 attempts in flight, at most 4 to one configuration. An attempt may wait
    // 20 s, longer than this part of the test can take however loaded the machine: the hanging
    // attempts hold their slots throughout, so the healthy deliveries can only have gone out
    // beside them, never after a timeout freed a slot.
    const w = startWorkerProcess({ POSTBACK_CONCURRENCY: '16', POSTBACK_CONFIG_CONCURRENCY: '4', POSTBACK_TIMEOUT_MS: '20000' });
    try {
      await until(() => other.received.length >= 4, 20_000);
      const healthy: string[] = [];
      for (let i = 0; i < 10; i++) healthy.push(await bed.fx.sale());
      await until(() => healthy.every((id) => arrivals(bed.receiver, id).length === 1), 15_000);
      // Every healthy delivery arrived while the first four hanging attempts were still open (none
      // ended, so no fifth began).
      expect(other.open).toBe(4);
      expect(other.received.length).toBe(4);
      expect(other.maxOpen).toBeLessThanOrEqual(4);
      const timedOut = await until(async () => bed.deps.models.PostbackDelivery.findOne({ conversion_id: { $in: hanging }, status: 'failed' }).lean(), 30_000);
      expect(timedOut.last_error).toBe('timed out after 20 s');
    } finally {
      w.child.kill('SIGKILL');
      await once(w.child, 'exit');
    }
  });

  it('pauses a failing receiver after failures in a row (not counting attempts), probes once, and resumes', { timeout: 60_000 }, async () => {
    // Long enough that the sales and the log read below happen within the first pause on a loaded machine.
    const PAUSE = 2000;
    other.behave = () => 500;
    await bed.startWorker({ postbackBreakerFailures: 3, postbackBreakerPauseMs: PAUSE, postbackRetryUnitMs: 60_000 });
    const failing: string[] = [];
    for (let i = 0; i < 3; i++) failing.push(await otherFx.sale());
    const pub = bed.deps.demo!.publishers[1];
    const paused = await until(async () => {
      const c = await bed.deps.models.PostbackConfig.findById(pub.account_id).lean();
      return c?.paused_until ? c : undefined;
    });
    expect(paused.consecutive_failures).toBe(3);
    // Sales made during the pause wait, shown in the delivery log, with no attempt counted.
    const during = [await otherFx.sale(), await otherFx.sale(), await otherFx.sale()];
    const api = publisherApi(bed.deps).callback();
    const log = await until(async () => {
      const res = await request(api).get('/api/v1/publisher/postback/deliveries/').set('X-API-Key', pub.keys.live);
      const rows = (res.body.data as Array<{ conversion_id: string; paused_until: string | null; attempts: number; status: string }>).filter((d) =>
        during.includes(d.conversion_id),
      );
      return rows.length === 3 ? rows : undefined;
    });
    for (const d of log) expect(d).toMatchObject({ status: 'pending', attempts: 0, paused_until: paused.paused_until!.toISOString() });
    const config = await request(api).get('/api/v1/publisher/postback/').set('X-API-Key', pub.keys.live);
    expect(config.body).toMatchObject({ consecutive_failures: 3, paused_until: paused.paused_until!.toISOString() });
    const before = other.received.length;
    // The probe fails: paused again, twice as long.
    const repaused = await until(async () => {
      const c = await bed.deps.models.PostbackConfig.findById(pub.account_id).lean();
      return c?.paused_until && c.paused_until > paused.paused_until! ? c : undefined;
    }, 10_000);
    expect(other.received.length - before).toBe(1);
    const probeAt = other.received[other.received.length - 1].at;
    expect(probeAt).toBeGreaterThanOrEqual(paused.paused_until!.getTime() - 2);
    expect(repaused.paused_until!.getTime() - probeAt).toBeGreaterThanOrEqual(2 * PAUSE - 50);
    // The failed probe was one of the waiting deliveries: its next attempt follows the schedule.
    const probe = await until(async () => bed.deps.models.PostbackDelivery.findOne({ conversion_id: { $in: during }, status: 'failed' }).lean());
    expect(probe).toMatchObject({ attempts: 1, last_response_status: 500 });
    expect(probe.next_attempt_at!.getTime() - probe.updated_at.getTime()).toBeGreaterThan(50_000);
    // The receiver is fixed: the next probe succeeds and everything else waiting goes out.
    other.behave = () => 'ok';
    for (const id of during.filter((c) => c !== probe.conversion_id)) {
      const d = await until(async () => {
        const row = await delivery(id);
        return row?.status === 'succeeded' ? row : undefined;
      }, 10_000);
      expect(d.attempts).toBe(1); // the paused waits counted no attempt
      expect(d.paused_until).toBeNull();
    }
    const closed = await bed.deps.models.PostbackConfig.findById(pub.account_id).lean();
    expect(closed).toMatchObject({ consecutive_failures: 0, paused_until: null });
    // No delivery of this receiver was sent while it was paused, but the probes.
    const pauses = [
      [paused.paused_until!.getTime() - PAUSE, paused.paused_until!.getTime()],
      [probeAt + 50, repaused.paused_until!.getTime()],
    ];
    for (const r of other.received) for (const [from, to] of pauses) expect(r.at > from + 50 && r.at < to - 2).toBe(false);
  });

  it('postbacks reading the log side by side make each sale event one delivery; a status change makes its own', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await bed.fx.sale());
    await appendPendingEvents(bed.deps);
    const results = await Promise.all([0, 1, 2].map(async () => (await deliverLoggedEvents(bed.deps)).created));
    // Readers that met on the same events upserted the same delivery ids: each delivery was created once, by one of them.
    expect(new Set(results.flat()).size).toBe(results.flat().length);
    expect(await bed.deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids } })).toBe(ids.length);
    expect(await deliverLoggedEvents(bed.deps)).toEqual({ accounts: 0, created: [] });
    // A status change's event joins the log and becomes one more delivery of its conversion.
    const res = await request(bed.fx.tracker.callback())
      .patch(`/api/v1/track/conversions/${ids[0]}`)
      .set('Authorization', `Bearer ${bed.fx.merchantToken}`)
      .send({ status: 'approved' });
    expect(res.status).toBe(200);
    await appendPendingEvents(bed.deps);
    await deliverLoggedEvents(bed.deps);
    expect((await bed.deps.models.PostbackDelivery.find({ conversion_id: ids[0] }).lean()).map((d) => d.event).sort()).toEqual([
      'sale.approved',
      'sale.created',
    ]);
  });

  it('keeps live retry jobs bounded by due-time slots, not by the number of failing deliveries', { timeout: 60_000 }, async () => {
    bed.receiver.behave = () => 503;
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push(await bed.fx.sale());
    await bed.startWorker({ postbackRetryUnitMs: 60_000, postbackBreakerFailures: 1000 });
    await until(async () => (await bed.deps.models.PostbackDelivery.countDocuments({ conversion_id: { $in: ids }, status: 'failed' })) === ids.length, 20_000);
    const rows = await bed.deps.models.PostbackDelivery.find({ conversion_id: { $in: ids } }).lean();
    const wakes = (j: { data: { slot: number } }, d: (typeof rows)[number]) =>
      j.data.slot >= d.next_attempt_at!.getTime() && j.data.slot - d.next_attempt_at!.getTime() < 1024;
    // The slot jobs that wake these retries (a delivery another test left may have failed meanwhile too).
    const all = await bed.deps.db.connection.db!.collection('jobs').find({ name: 'postbacks:retry' }).toArray();
    const jobs = all.filter((j) => rows.some((d) => wakes(j as never, d)));
    // 60 retries due 54-66 s out (the first wait, +-10%) fall in slots of 512 or 1,024 ms: at most
    // 12 s / 512 ms + 2 = 26 slot jobs however many fail, each the wake-up of every retry due by then.
    expect(jobs.length).toBeLessThanOrEqual(26);
    expect(jobs.length).toBeLessThan(ids.length);
    expect(jobs.length).toBeGreaterThan(0);
    for (const d of rows) expect(jobs.some((j) => wakes(j as never, d))).toBe(true);
  });

  it('keeps a succeeded delivery 7 days without its body, a failed one 30 days with it, and redelivers the failed one', async () => {
    await bed.startWorker();
    // Set before the sales: a first delivery can arrive before the sale's own answer.
    bed.receiver.behave = (r) => (subidOf(r.body) === 'kept-30-days' ? 500 : 'ok');
    const ok = await bed.fx.sale();
    const bad = await bed.fx.sale('kept-30-days');
    const done = await until(async () => {
      const d = await delivery(ok);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(done.body).toBeUndefined();
    expect(done.expires_at!.getTime() - done.updated_at.getTime()).toBe(7 * DAY);
    const failed = await until(async () => {
      const d = await delivery(bad);
      return d?.status === 'failed' && !d.leased_until ? d : undefined;
    });
    expect(failed.body).toBeTruthy();
    expect(failed.expires_at!.getTime() - failed.updated_at.getTime()).toBe(30 * DAY);
    await bed.reset();
    await bed.deps.models.PostbackDelivery.updateOne({ _id: failed._id }, { $set: { status: 'dead', next_attempt_at: null } });
    const pub = bed.deps.demo!.publishers[0];
    const res = await request(publisherApi(bed.deps).callback())
      .post(`/api/v1/publisher/postback/deliveries/${failed._id}/redeliver/`)
      .set('X-API-Key', pub.keys.live);
    expect(res.status).toBe(200);
    await bed.startWorker();
    const redelivered = await until(async () => {
      const d = await delivery(bad);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(bed.fx.verify(arrivals(bed.receiver, bad).at(-1)!).conversion.id).toBe(bad);
    expect(redelivered.body).toBeUndefined();
  });
});
