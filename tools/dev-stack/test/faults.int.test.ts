/**
 * Dependencies failing under real processes: a private redis-server killed, restarted and
 * flapping; the embedded engine stopped and restarted; a service process stopped with SIGTERM
 * under load. The promises: 503 quickly (never a hang, never an unlimited pass) while a
 * dependency is down, recovery without a restart, and no click lost.
 */
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessCache, bumpOnAccessChange, issueMerchantToken, RedisAccessVersions } from '@cw/auth';
import { onAccessChange } from '@cw/db';
import { ensureLinks } from '@cw/links';
import { createLogger } from '@cw/logging';
import { createRedisRateLimiter } from '@cw/ratelimit';
import { createTestDeps, readEventStream, spawnService, startRedisServer, type PrivateRedis, type SseMessage, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApp } from '@cw/app-tracker';

const B = '/api/v1/publisher';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function linkOf(deps: TestDeps): Promise<string> {
  const [{ code }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [{ publisherId: deps.demo!.publishers[0].account_id, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'faults' }],
    { source: 'api', listed: true },
  );
  return code;
}

/** The publisher API and the tracker on a private Redis (limiter and access versions), as in production. */
async function onPrivateRedis(): Promise<{
  redis: PrivateRedis;
  deps: TestDeps;
  publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
  tracker: ReturnType<typeof trackerApp>;
}> {
  const redis = await startRedisServer();
  const deps = await createTestDeps({ seedProducts: 30, env: { RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '100000' } });
  const client = new Redis(redis.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    enableAutoPipelining: true,
    retryStrategy: () => 100,
  });
  client.on('error', () => undefined);
  await client.connect();
  const appDeps = { ...deps, limiter: createRedisRateLimiter(client, 'faults'), access: new AccessCache(new RedisAccessVersions(client, 'faults_access')) };
  const tracker = trackerApp(appDeps);
  cleanups.push(async () => {
    await tracker.clicks.close();
    client.disconnect();
    await deps.close();
    await redis.stop();
  });
  return { redis, deps, publisher: publisherApi(appDeps).callback(), tracker };
}

describe('Redis down, back, and flapping', () => {
  it('answers 503 within 100 ms with RateLimit headers while Redis is down, keeps redirecting, and recovers without a restart', async () => {
    const { redis, deps, publisher, tracker } = await onPrivateRedis();
    const key = deps.demo!.publishers[0].keys.live;
    const code = await linkOf(deps);
    const redirects = tracker.callback();
    expect((await request(publisher).get(`${B}/products/?country=DE`).set('X-API-Key', key)).status).toBe(200);
    expect((await request(redirects).get(`/c/${code}`).set('User-Agent', BROWSER)).status).toBe(302);

    await redis.kill();
    await sleep(100);
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const res = await request(publisher).get(`${B}/products/?country=DE`).set('X-API-Key', key);
      expect(Date.now() - started).toBeLessThan(100);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('service_unavailable');
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.headers['ratelimit-limit']).toBeDefined();
      // The tracker only counts: a reader's redirect never waits for Redis.
      expect((await request(redirects).get(`/c/${code}`).set('User-Agent', BROWSER)).status).toBe(302);
    }

    await redis.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await sleep(100);
      status = (await request(publisher).get(`${B}/products/?country=DE`).set('X-API-Key', key)).status;
    }
    expect(status).toBe(200);
  });

  it('fails a write whose access change cannot be announced (Redis down) with 503, the change saved, and announces again once Redis is back', async () => {
    const { redis, deps } = await onPrivateRedis();
    const client = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => 100 });
    client.on('error', () => undefined);
    await client.connect();
    const off = onAccessChange(deps.db.connection, bumpOnAccessChange(new RedisAccessVersions(client, 'faults_writes')));
    cleanups.push(async () => {
      off();
      client.disconnect();
    });
    const account = deps.demo!.publishers[0].account_id;
    await redis.kill();
    await sleep(100);
    await expect(deps.data.auth.updatePublisher(account, { name: 'Renamed while Redis was away' })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect((await deps.data.auth.publisherById(account))!.name).toBe('Renamed while Redis was away');
    await redis.start();
    let done = false;
    for (let i = 0; i < 50 && !done; i++) {
      await sleep(100);
      done = await deps.data.auth.updatePublisher(account, { name: 'Renamed again' }).then(
        () => true,
        () => false,
      );
    }
    expect(done).toBe(true);
  });

  it('answers every request of a minute of Redis flapping every second with 200 or 503, never a hang or a 500, and recovers', async () => {
    const { redis, deps, publisher } = await onPrivateRedis();
    const key = deps.demo!.publishers[0].keys.live;
    const statuses = new Map<number, number>();
    let slowest = 0;
    let flapping = true;
    const flap = (async () => {
      for (let i = 0; flapping; i++) {
        await (i % 2 ? redis.start() : redis.kill());
        await sleep(1000);
      }
    })();
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      const started = Date.now();
      const res = await request(publisher).get(`${B}/products/?country=DE`).set('X-API-Key', key).timeout(5000);
      slowest = Math.max(slowest, Date.now() - started);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.headers['ratelimit-limit']).toBeDefined();
      await sleep(20);
    }
    flapping = false;
    await flap;
    if (
      !(await redis.start().then(
        () => true,
        () => false,
      ))
    )
      await redis.start();
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect(slowest).toBeLessThan(1000);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await sleep(100);
      status = (await request(publisher).get(`${B}/products/?country=DE`).set('X-API-Key', key)).status;
    }
    expect(status).toBe(200);
  }, 90_000);
});

describe('the database down and back', () => {
  it('keeps redirecting while the database is away, writes the buffered clicks when it returns, and drops the oldest past the bound with a metric and one log line', async () => {
    const lines: string[] = [];
    const deps = await createTestDeps({
      seedProducts: 10,
      durable: true,
      serverSelectionTimeoutMS: 300,
      env: { CLICK_BUFFER_MAX: '50', CLICK_FLUSH_INTERVAL_MS: '50', RATELIMIT_IP_PER_MIN: '100000' },
    });
    const logger = createLogger({ destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
    const app = trackerApp({ ...deps, logger });
    cleanups.push(async () => {
      await app.clicks.close(1000);
      await deps.close();
    });
    const code = await linkOf(deps);
    const redirects = app.callback();
    expect((await request(redirects).get(`/c/${code}`).set('User-Agent', BROWSER)).status).toBe(302);
    await app.clicks.flush();

    const back = deps.tdb.restart(1500);
    await sleep(300);
    for (let i = 0; i < 80; i++)
      expect((await request(redirects).get(`/c/${code}`).set('User-Agent', BROWSER).set('X-Forwarded-For', `198.51.100.${i}`)).status).toBe(302);
    await back;
    await app.clicks.close(20_000);

    expect(app.clicks.pending).toBe(0);
    expect(app.clicks.dropped).toBe(30);
    expect((await deps.data.links.storedClicks({ linkId: code })).length).toBe(1 + 50);
    expect(await deps.metrics.registry.getSingleMetricAsString('tracker_clicks_dropped_total')).toMatch(/tracker_clicks_dropped_total 30/);
    expect(lines.filter((l) => l.includes('click buffer full')).length).toBe(1);
  }, 60_000);
});

/** The tracker as its own process (apps/tracker/src/main.ts) on the test database, ready to redirect. */
const spawnTracker = (deps: TestDeps, env: Record<string, string> = {}) => spawnService('tracker', deps.tdb.uri, env);

describe('kill -9 under load', () => {
  it('attributes a sale on every click it answered, though the clicks it had not yet written died with it', async () => {
    const deps = await createTestDeps({ seedProducts: 10 });
    cleanups.push(() => deps.close());
    const code = await linkOf(deps);
    // Clicks are written every minute here, so every click the process answered is still in its buffer when it dies.
    const { child, base } = await spawnTracker(deps, { CLICK_FLUSH_INTERVAL_MS: '60000', TRUST_PROXY_HOPS: '1' });
    const exited = once(child, 'exit');
    const clickIds: string[] = [];
    let stop = false;
    const worker = async (n: number) => {
      while (!stop) {
        try {
          // Many readers, each at its own address (behind one trusted proxy), so none is over the per-link click rate.
          const reader = `198.51.100.${(clickIds.length * 8 + n) % 250}`;
          const res = await fetch(`${base}/c/${code}`, { redirect: 'manual', headers: { 'User-Agent': BROWSER, 'X-Forwarded-For': reader } });
          if (res.status === 302) clickIds.push(new URL(res.headers.get('location')!).searchParams.get('cw_click_id')!);
          await res.arrayBuffer();
        } catch {
          return; // the process is gone
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, n) => worker(n)));
    while (clickIds.length < 200) await sleep(10);
    child.kill('SIGKILL');
    await exited;
    stop = true;
    await load;

    const stored = (await deps.data.links.storedClicks({ linkId: code })).length;
    expect(stored).toBeLessThan(clickIds.length);
    const intake = trackerApp(deps);
    cleanups.push(() => intake.clicks.close());
    const token = (await issueMerchantToken(deps.data.auth, 501)).secret;
    const statuses = new Map<number, number>();
    for (const [i, clickId] of clickIds.entries()) {
      const res = await request(intake.callback())
        .post('/api/v1/track/conversions/')
        .set('Authorization', `Bearer ${token}`)
        .send({ click_id: clickId, order_id: `KILL-${i}`, amount: '10.00', currency: 'EUR' });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 201: clickIds.length });
    const sales = await deps.models.Conversion.find({ order_ref: /^KILL-/ }).lean();
    expect(sales.every((c) => c.publisher_id === deps.demo!.publishers[0].account_id && c.subid === 'faults' && c.link_id === code)).toBe(true);
  }, 60_000);
});

describe('SIGTERM: readiness first', () => {
  it('answers /readyz 503 (and /healthz 200) while it drains, still serving requests, then exits', async () => {
    const deps = await createTestDeps({ seedProducts: 10 });
    cleanups.push(() => deps.close());
    const code = await linkOf(deps);
    const { child, base } = await spawnTracker(deps, { SHUTDOWN_DRAIN_MS: '1500' });
    const exited = once(child, 'exit');
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    child.kill('SIGTERM');
    await sleep(300);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ code: 'service_unavailable', checks: { draining: 'yes' } });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/c/${code}`, { redirect: 'manual', headers: { 'User-Agent': BROWSER } })).status).toBe(302);
    const [exitCode] = (await exited) as [number];
    expect(exitCode).toBe(0);
  }, 60_000);
});

describe('SIGTERM with open event streams', () => {
  it('ends each stream with a comment saying so (clients resume with Last-Event-ID), then exits', async () => {
    const deps = await createTestDeps({ seedProducts: 10 });
    cleanups.push(() => deps.close());
    const { child, base } = await spawnService('publisher-api', deps.tdb.uri, { SHUTDOWN_DRAIN_MS: '300' });
    const exited = once(child, 'exit');
    const res = await fetch(`${base}/api/v1/publisher/events/stream/`, { headers: { 'X-API-Key': deps.demo!.publishers[0].keys.live } });
    expect(res.status).toBe(200);
    const messages: SseMessage[] = [];
    const reading = readEventStream(res.body, (m) => messages.push(m));
    while (!messages.some((m) => m.data)) await sleep(20);
    child.kill('SIGTERM');
    await reading; // the server ended the response
    expect(messages.at(-1)?.comment).toContain('shutting down');
    const [exitCode] = (await exited) as [number];
    expect(exitCode).toBe(0);
  }, 60_000);
});

describe('SIGTERM under load', () => {
  it('finishes what it answered and writes every click of every redirect answered before it exits', async () => {
    const deps = await createTestDeps({ seedProducts: 10 });
    cleanups.push(() => deps.close());
    const code = await linkOf(deps);
    const { child, base } = await spawnTracker(deps, { SHUTDOWN_DRAIN_MS: '0' });
    const exited = once(child, 'exit');
    let answered = 0;
    let sent = 0;
    const worker = async () => {
      while (sent < 3000) {
        sent++;
        try {
          const res = await fetch(`${base}/c/${code}`, { redirect: 'manual', headers: { 'User-Agent': BROWSER } });
          if (res.status === 302) answered++;
          await res.arrayBuffer();
        } catch {
          return; // the server has stopped accepting
        }
      }
    };
    const load = Promise.all(Array.from({ length: 16 }, worker));
    while (answered < 300) await sleep(10);
    child.kill('SIGTERM');
    await load;
    const [exitCode] = (await exited) as [number];
    expect(exitCode).toBe(0);
    expect(answered).toBeGreaterThan(300);
    expect((await deps.data.links.storedClicks({ linkId: code })).length).toBe(answered);
  }, 60_000);
});
