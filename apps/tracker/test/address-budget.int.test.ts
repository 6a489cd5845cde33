/**
 * The per-address budget of cached redirects, counted in the tracker and sent to the shared
 * rate-limit store in batches (docs/decisions/0050-tracker-counts-addresses-in-batches.md): a reader
 * over it is flagged as a bot (`rate`) and still redirected, every redirect reaches the store that
 * the other services refuse from, and what they counted is seen within one batch.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLinks } from '@cw/links';
import { serveApp } from '@cw/http';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp, type TrackerApp } from '../src/app';

const LIMIT = 3;
let deps: TestDeps;
let app: TrackerApp;
let server: ReturnType<typeof serveApp>;
let codes: string[];
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

beforeAll(async () => {
  deps = await createTestDeps({ env: { RATELIMIT_IP_PER_MIN: String(LIMIT), TRUST_PROXY_HOPS: '1' } });
  app = createApp(deps);
  server = serveApp(app);
  await deps.models.Merchant.create({ _id: 910, name: 'Budget Shop' });
  await deps.models.Program.create({ _id: 9101, name: 'Budget Shop DE', merchant_id: 910, default_landing_url: 'https://www.budget.example/' });
  const links = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    Array.from({ length: 6 }, (_, i) => ({
      publisherId: 'pub_budget',
      programId: 9101,
      merchantId: 910,
      landingUrl: 'https://www.budget.example/',
      subid: `s${i}`,
    })),
    { source: 'api', listed: true },
  );
  codes = links.map((l) => l.code);
  // A first sight of each code (Koa's route, from another address) caches its target: every click below is the node route's.
  for (const code of codes) expect((await request(server).head(`/c/${code}`).set('X-Forwarded-For', '198.51.100.1')).status).toBe(302);
});
afterAll(async () => {
  await app?.clicks.close();
  await app?.addresses.close();
  await deps?.close();
});

const click = (code: string, address: string) => request(server).get(`/c/${code}`).set('X-Forwarded-For', address).set('User-Agent', BROWSER);
const clickIdOf = (r: request.Response) => [...new URL(r.headers.location).searchParams.values()].find((v) => v.startsWith('clk_'))!;

describe('the per-address budget of cached redirects', () => {
  it('flags the redirects over it as bots, still redirects them, and counts every one in the shared store', async () => {
    const address = '203.0.113.50';
    // Distinct links, so only the per-address budget can flag them (not the repeat of one link).
    const answers = [];
    for (const code of codes.slice(0, 5)) answers.push(await click(code, address));
    expect(answers.map((r) => r.status)).toEqual([302, 302, 302, 302, 302]);
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
    expect(answers.every((r) => r.headers['ratelimit-limit'] === String(LIMIT) && r.headers['ratelimit-policy'] === `${LIMIT};w=60`)).toBe(true);
    await app.clicks.flush();
    const stored = await Promise.all(answers.map((r) => deps.data.links.clickById(clickIdOf(r))));
    expect(stored.map((c) => c!.is_bot)).toEqual([false, false, false, true, true]);
    expect(stored[3]).toMatchObject({ bot_reason: 'rate' });

    // The store the other services limit by holds them once the batch is sent: the address is spent there too.
    await app.addresses.flush();
    expect(await deps.limiter.consume('ip', address, LIMIT)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await deps.limiter.consume('ip', '203.0.113.59', LIMIT)).toMatchObject({ allowed: true });
  });

  it('sees what other services counted for an address within one batch', async () => {
    const address = '203.0.113.51';
    for (let i = 0; i < LIMIT; i++) await deps.limiter.consume('ip', address, LIMIT);
    // Not yet known here: the first redirect is counted on this process's view alone.
    const first = await click(codes[0]!, address);
    await app.addresses.flush();
    const next = await click(codes[1]!, address);
    expect(next.headers['ratelimit-remaining']).toBe('0');
    await app.clicks.flush();
    expect((await deps.data.links.clickById(clickIdOf(first)))!.is_bot).toBe(false);
    expect(await deps.data.links.clickById(clickIdOf(next))).toMatchObject({ is_bot: true, bot_reason: 'rate' });
  });
});
