/** GET /c/{code}: redirect with the click id, buffered click records, bot flags, through HTTP. */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLinks } from '@cw/links';
import { serveApp } from '@cw/http';
import { createLogger } from '@cw/logging';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp, type TrackerApp } from '../src/app';

let deps: TestDeps;
let app: TrackerApp;
let server: ReturnType<typeof serveApp>;
let code: string;
let customCode: string;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

beforeAll(async () => {
  deps = await createTestDeps({ env: { RATELIMIT_IP_PER_MIN: '100000' } });
  app = createApp(deps);
  server = serveApp(app);
  await deps.models.Merchant.create({ _id: 900, name: 'Test Shop' });
  await deps.models.Program.create({
    _id: 9001,
    name: 'Test Shop DE',
    merchant_id: 900,
    default_landing_url: 'https://www.testshop.example/',
    allowed_domains: ['testshop.example'],
  });
  await deps.models.Program.create({
    _id: 9002,
    name: 'Test Shop GB',
    merchant_id: 900,
    default_landing_url: 'https://www.testshop.example/uk/',
    click_id_param: 'aff_click',
  });
  [{ code }, { code: customCode }] = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    [
      { publisherId: 'pub_a', programId: 9001, merchantId: 900, landingUrl: 'https://www.testshop.example/shoes?colour=red', subid: 'post-17' },
      { publisherId: 'pub_a', programId: 9002, merchantId: 900, landingUrl: 'https://www.testshop.example/uk/', subid: '' },
    ],
    { source: 'api', listed: true },
  );
});
afterAll(async () => {
  await app?.clicks.close();
  await deps?.close();
});

const click = (c: string, ua: string | null = BROWSER) => {
  const r = request(server).get(`/c/${c}`).set('X-Forwarded-For', '203.0.113.9');
  return ua === null ? r.unset('User-Agent') : r.set('User-Agent', ua).set('Referer', 'https://blog.example/post-17');
};

describe('GET /c/{code}', () => {
  it("answers 302 to the landing URL with the click id under the program's parameter", async () => {
    const res = await click(code);
    expect(res.status).toBe(302);
    expect(res.headers['cache-control']).toBe('no-store');
    const to = new URL(res.headers.location);
    expect(`${to.origin}${to.pathname}`).toBe('https://www.testshop.example/shoes');
    expect(to.searchParams.get('colour')).toBe('red');
    expect(to.searchParams.get('cw_click_id')).toMatch(/^clk_[A-Za-z0-9_-]{51}$/);
    const custom = new URL((await click(customCode)).headers.location);
    expect(custom.searchParams.get('aff_click')).toMatch(/^clk_/);
    expect(custom.searchParams.has('cw_click_id')).toBe(false);
    expect(res.headers.location).not.toMatch(/pub_|live_|subid|post-17/);
  });

  it('records the click in the background: link, publisher, program, sub-ID, agent, hashed address, referrer', async () => {
    const res = await click(code);
    const id = new URL(res.headers.location).searchParams.get('cw_click_id')!;
    await app.clicks.flush();
    const stored = await deps.data.links.clickById(id);
    expect(stored).toMatchObject({
      link_id: code,
      publisher_id: 'pub_a',
      program_id: 9001,
      campaign_id: 900,
      subid: 'post-17',
      user_agent: BROWSER,
      referrer: 'https://blog.example/post-17',
      is_bot: false,
    });
    expect(stored!.ip_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(stored)).not.toContain('127.0.0.1');
    expect(Date.now() - stored!.created_at.getTime()).toBeLessThan(60_000);
  });

  it('flags known bot agents, missing agents and rapid repeats as bots, and still redirects them', async () => {
    const bot = await click(code, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
    const curl = await click(code, 'curl/8.5.0');
    const none = await click(code, null);
    for (const r of [bot, curl, none]) expect(r.status).toBe(302);
    await app.clicks.flush();
    const clickIdOf = (r: request.Response) => [...new URL(r.headers.location).searchParams.values()].find((v) => v.startsWith('clk_'));
    const reasonOf = async (r: request.Response) => (await deps.data.links.clickById(clickIdOf(r)!))!;
    expect(await reasonOf(bot)).toMatchObject({ is_bot: true, bot_reason: 'user_agent' });
    expect(await reasonOf(curl)).toMatchObject({ is_bot: true, bot_reason: 'user_agent' });
    expect(await reasonOf(none)).toMatchObject({ is_bot: true, bot_reason: 'no_user_agent' });
    // Agents seen before answer the same (they are memoised), and a long agent is kept as its first 512 characters.
    const long = `Mozilla/5.0 (X11; Linux x86_64) ${'Gecko '.repeat(120)}`;
    const again = [await click(code, 'curl/8.5.0'), await click(code, '   '), await click(code, long), await click(code, long)];
    await app.clicks.flush();
    expect(await reasonOf(again[0]!)).toMatchObject({ is_bot: true, bot_reason: 'user_agent' });
    expect(await reasonOf(again[1]!)).toMatchObject({ is_bot: true, bot_reason: 'no_user_agent' });
    for (const r of again.slice(2)) expect(await reasonOf(r)).toMatchObject({ is_bot: false, user_agent: long.slice(0, 512) });

    const burst = [];
    for (let i = 0; i < 12; i++) burst.push(await click(customCode));
    await app.clicks.flush();
    const flags = await Promise.all(burst.map(reasonOf));
    expect(flags.slice(0, 9).every((c) => !c.is_bot)).toBe(true);
    expect(flags.at(-1)).toMatchObject({ is_bot: true, bot_reason: 'rate' });
  });

  it('answers 404 in the error shape for unknown and malformed codes, recording nothing', async () => {
    const before = (await deps.data.links.storedClicks({})).length;
    for (const c of ['ZZZZZZZZZZZZZZ', 'bad-code!', 'x'.repeat(65)]) {
      const res = await click(encodeURIComponent(c));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found', request_id: res.headers['x-request-id'] });
    }
    await app.clicks.flush();
    expect((await deps.data.links.storedClicks({})).length).toBe(before);
  });

  it('redirects HEAD requests (link previews) without recording a click, from Koa and the node route alike', async () => {
    const [{ code: previewed }] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: 'pub_a', programId: 9001, merchantId: 900, landingUrl: 'https://www.testshop.example/preview', subid: 'head-only' }],
      { source: 'api', listed: true },
    );
    await app.clicks.flush();
    const before = (await deps.data.links.storedClicks({})).length;
    // The first HEAD resolves the code (Koa), the second finds it cached (the node route).
    const answers = [
      await request(server).head(`/c/${previewed}`).set('User-Agent', BROWSER),
      await request(server).head(`/c/${previewed}`).set('User-Agent', BROWSER),
    ];
    for (const res of answers) {
      expect(res.status).toBe(302);
      expect(new URL(res.headers.location).pathname).toBe('/preview');
      expect([res.headers['content-length'], res.headers['content-type']]).toEqual(['0', undefined]);
    }
    expect(Object.keys(answers[1]!.headers).sort()).toEqual(Object.keys(answers[0]!.headers).sort());
    await app.clicks.flush();
    expect((await deps.data.links.storedClicks({})).length).toBe(before);
  });

  it('answers a code seen before (the node route) exactly as its first redirect (Koa): headers, no body, counting, metrics, access line', async () => {
    const redirectsCounted = async () => {
      const m = (await deps.metrics.registry.getMetricsAsJSON()).find((x) => x.name === 'http_requests_total');
      return (m?.values ?? []).filter((v) => v.labels.route === '/c/:code' && String(v.labels.status) === '302').reduce((a, v) => a + v.value, 0);
    };
    const countedBefore = await redirectsCounted();
    const logged: string[] = [];
    const sink = new Writable({ write: (c, _e, cb) => (logged.push(String(c)), cb()) });
    const fresh = createApp({ ...deps, logger: createLogger({ name: 'tracker', destination: sink }) });
    const srv = serveApp(fresh);
    // A link never followed: its first redirect is Koa's (it resolves and caches the target), the rest the node route's.
    const [{ code: unseen }] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: 'pub_a', programId: 9001, merchantId: 900, landingUrl: 'https://www.testshop.example/boots?size=42&colour=red', subid: 'koa-vs-node' }],
      { source: 'api', listed: true },
    );
    const follow = (accept?: string) => {
      const r = request(srv).get(`/c/${unseen}`).set('User-Agent', BROWSER).set('X-Request-Id', 'req-from-caller-1');
      return accept ? r.set('Accept', accept) : r;
    };
    expect(deps.caches.redirectTargets.get(unseen!)).toBeUndefined();
    const first = await follow();
    expect(deps.caches.redirectTargets.get(unseen!)).toBeDefined();
    const second = await follow();
    const plain = await follow('application/json');
    for (const res of [first, second, plain]) {
      expect(res.status).toBe(302);
      expect(res.headers['x-request-id']).toBe('req-from-caller-1');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      // No body: nothing to type, nothing to escape.
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['content-length']).toBe('0');
      expect(res.text).toBe('');
      expect(res.headers['ratelimit-limit']).toBe('100000');
      expect(res.headers['ratelimit-policy']).toBe('100000;w=60');
    }
    const names = (res: { headers: Record<string, string> }) => Object.keys(res.headers).sort();
    expect(names(second)).toEqual(names(first));
    // Both spend the address's point: Koa in the store, the node route in this process's count
    // (decision 0050: a new address shows a fresh window until its first batch is answered).
    expect(Number(first.headers['ratelimit-remaining'])).toBeLessThan(100000);
    expect(Number(plain.headers['ratelimit-remaining'])).toBe(Number(second.headers['ratelimit-remaining']) - 1);
    const generated = await request(srv).get(`/c/${unseen}/?utm=x`).set('User-Agent', BROWSER);
    expect(generated.status).toBe(302);
    expect(generated.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    const ids = [first, second, plain, generated].map((r) => new URL(r.headers.location).searchParams.get('cw_click_id'));
    expect(new Set(ids).size).toBe(4);
    await fresh.clicks.close();
    expect((await deps.data.links.storedClicks({ linkId: unseen })).filter((c) => ids.includes(c._id)).length).toBe(4);
    expect(await redirectsCounted()).toBe(countedBefore + 4);
    // One access line per redirect, Koa's (the first) and the node route's alike; never the code or the query.
    const access = logged
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    expect(access.map((l) => [l.method, l.route, l.status, l.request_id])).toEqual(
      [first, second, plain, generated].map((r) => ['GET', '/c/:code', 302, r.headers['x-request-id']]),
    );
    expect(access.every((l) => typeof l.duration_ms === 'number' && !JSON.stringify(l).includes(unseen!))).toBe(true);
  });

  it('loses no click: everything buffered is written when the recorder closes', async () => {
    const second = createApp(deps);
    const before = (await deps.data.links.storedClicks({})).length;
    const sent = 300;
    await Promise.all(
      Array.from({ length: sent }, (_, i) =>
        request(serveApp(second))
          .get(`/c/${code}`)
          .set('User-Agent', BROWSER)
          .set('X-Forwarded-For', `198.51.100.${i % 250}`),
      ),
    );
    await second.clicks.close();
    expect(second.clicks.pending).toBe(0);
    expect((await deps.data.links.storedClicks({})).length).toBe(before + sent);
  });
});
