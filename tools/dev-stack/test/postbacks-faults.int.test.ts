/**
 * Postback delivery under faults, with real processes where it matters: a receiver that is down,
 * fails, or never answers; a worker process killed in the middle of an attempt; the database
 * (the database dropping every connection is in postbacks-outage.int.test.ts). The retry schedule runs on a short minute
 * (POSTBACK_RETRY_UNIT_MS) so the whole schedule plays out in seconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { conversionOf, faultBed, subidOf, until, type FaultBed } from './support/postback-harness';

const UNIT = 50; // the schedule's "minute", in ms
const TIMEOUT = 1000; // one attempt's budget; the lease on a claimed attempt is three of these
const WORKER_MAIN = fileURLToPath(new URL('../../../apps/postback-worker/src/main.ts', import.meta.url));

let bed: FaultBed;
beforeAll(async () => {
  bed = await faultBed({ unitMs: UNIT, timeoutMs: TIMEOUT });
});
afterEach(() => bed.reset());
afterAll(() => bed?.close());

const delivery = (conversionId: string) => bed.deps.models.PostbackDelivery.findOne({ conversion_id: conversionId }).lean();
const arrivals = (conversionId: string) => bed.receiver.received.filter((r) => conversionOf(r.body) === conversionId);

describe('postback delivery under faults', () => {
  it('retries a receiver that is down on the schedule, each retry an Agenda job, and delivers once it is back', { timeout: 60_000 }, async () => {
    await bed.receiver.down();
    // A "minute" of 500 ms: each failed state (0.5, 2 and 8 s) lasts long enough to be seen by
    // polling on a loaded machine (at 200 ms a busy CI missed the first).
    const unit = 500;
    await bed.startWorker({ postbackRetryUnitMs: unit });
    const id = await bed.fx.sale();
    const seen = new Map<number, { last: number; done: number; next: number }>();
    const observe = async () => {
      const d = await delivery(id);
      if (d?.status === 'failed' && !d.leased_until)
        seen.set(d.attempts, { last: d.last_attempt_at!.getTime(), done: d.updated_at.getTime(), next: d.next_attempt_at!.getTime() });
      return d;
    };
    const third = await until(
      async () => {
        const d = await observe();
        return d?.status === 'failed' && !d.leased_until && d.attempts === 3 ? d : undefined;
      },
      30_000,
      5,
    );
    expect(third.last_error).toMatch(/ECONNREFUSED|connect/);
    // The next attempt is woken by Agenda: the retry slot job it falls in, due at most 1/64 of the wait after it.
    const due = third.next_attempt_at!.getTime();
    const job = await bed.deps.db.connection
      .db!.collection('jobs')
      .findOne({ name: 'postbacks:retry', 'data.slot': { $gte: due } }, { sort: { 'data.slot': 1 } });
    expect(job?.nextRunAt).toEqual(new Date(job?.data.slot));
    expect(job!.data.slot - due).toBeLessThanOrEqual(Math.ceil((unit * 4 ** 2 * 1.1) / 64));

    await bed.receiver.up();
    const done = await until(
      async () => {
        const d = await observe();
        return d?.status === 'succeeded' ? d : undefined;
      },
      30_000,
      5,
    );
    expect(done.attempts).toBe(4);
    for (let n = 1; n <= 3; n++) {
      const { done: failedAt, next } = seen.get(n)!;
      const wait = unit * 4 ** (n - 1); // before attempt n + 1: min(6 h, 1 min x 4^(n-1)) in the test's minute
      expect(next - failedAt).toBeGreaterThanOrEqual(Math.floor(wait * 0.9));
      expect(next - failedAt).toBeLessThanOrEqual(Math.ceil(wait * 1.1));
      // Never made before its time (timers may fire a millisecond early). How late a wake-up may
      // be is the benchmark's to measure (bench:postbacks), not a wall-clock bound a loaded machine can miss.
      const made = n < 3 ? seen.get(n + 1)!.last : done.last_attempt_at!.getTime();
      expect(made).toBeGreaterThanOrEqual(next - 2);
    }
    const got = arrivals(id);
    expect(got).toHaveLength(1);
    expect(got[0].headers['x-cw-delivery']).toBe(done._id);
    expect(bed.fx.verify(got[0])).toMatchObject({ type: 'sale.created', conversion: { id } });
  });

  it('gives up after 8 attempts: the delivery is dead, every attempt under one delivery id', async () => {
    await bed.startWorker({ postbackRetryUnitMs: 1 });
    // Failing from the first attempt, which can arrive before the sale's own answer does.
    bed.receiver.behave = (r) => (subidOf(r.body) === 'gives-up-8' ? 500 : 'ok');
    const id = await bed.fx.sale('gives-up-8');
    const dead = await until(async () => {
      const d = await delivery(id);
      return d?.status === 'dead' ? d : undefined;
    }, 15_000);
    expect(dead).toMatchObject({ attempts: 8, last_response_status: 500, next_attempt_at: null });
    await new Promise((r) => setTimeout(r, 300)); // nothing more
    const got = arrivals(id);
    expect(got).toHaveLength(8);
    expect(new Set(got.map((r) => r.headers['x-cw-delivery']))).toEqual(new Set([dead._id]));
    // Every wake-up job ran and was removed: nothing is left scheduled for a dead delivery.
    await until(async () => (await bed.deps.db.connection.db!.collection('jobs').countDocuments({ name: 'postbacks:retry' })) === 0);
  });

  it('times out a receiver that never answers without holding up other deliveries, then retries it', async () => {
    await bed.startWorker();
    let hung = 0;
    bed.receiver.behave = (r) => (subidOf(r.body) === 'times-out' && hung++ === 0 ? 'hang' : 'ok');
    const slow = await bed.fx.sale('times-out');
    await until(() => arrivals(slow).length === 1);
    const fast = await bed.fx.sale();
    await until(() => arrivals(fast).length === 1);
    const failed = await until(async () => {
      const d = await delivery(slow);
      return d?.status === 'failed' && !d.leased_until ? d : undefined;
    });
    expect(failed.last_error).toBe(`timed out after ${TIMEOUT / 1000} s`);
    // The other sale arrived while the first attempt was still waiting for its answer.
    expect(arrivals(fast)[0].at).toBeLessThan(failed.updated_at.getTime());
    const done = await until(async () => {
      const d = await delivery(slow);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(done.attempts).toBe(2);
    expect(new Set(arrivals(slow).map((r) => r.headers['x-cw-delivery']))).toEqual(new Set([done._id]));
  });

  it('retries under the same delivery id when the worker process is killed mid-attempt', { timeout: 60_000 }, async () => {
    let child: ChildProcess | undefined;
    try {
      const reached = new Promise<void>((ok) => (bed.receiver.onRequest = () => ok()));
      let first = true;
      bed.receiver.behave = () => (first ? ((first = false), 'hang') : 'ok');
      child = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
        env: {
          ...process.env,
          NODE_ENV: 'test',
          MONGODB_URI: bed.deps.tdb.uri,
          PORT: '0',
          LOG_LEVEL: 'silent',
          POSTBACK_RETRY_UNIT_MS: String(UNIT),
          POSTBACK_TIMEOUT_MS: String(TIMEOUT),
          // The receiver is local (http on 127.0.0.1), as the bed's own deps allow.
          POSTBACK_ALLOW_INSECURE: 'true',
          REDIS_URL: '',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (c) => (stderr += c));
      const id = await bed.fx.sale();
      await Promise.race([reached, new Promise((_, no) => child!.once('exit', () => no(new Error(`worker exited: ${stderr}`))))]);
      child.kill('SIGKILL');
      await new Promise((ok) => child!.once('exit', ok));
      const held = await delivery(id);
      expect(held).toMatchObject({ status: 'pending', attempts: 1 });

      // Another worker takes the attempt over once its lease has passed.
      await bed.startWorker();
      const done = await until(async () => {
        const d = await delivery(id);
        return d?.status === 'succeeded' ? d : undefined;
      }, 30_000);
      expect(done.attempts).toBe(2);
      const got = arrivals(id);
      expect(got).toHaveLength(2);
      expect(got.map((r) => r.headers['x-cw-delivery'])).toEqual([done._id, done._id]);
      expect(got.map((r) => bed.fx.verify(r).conversion.id)).toEqual([id, id]);
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
