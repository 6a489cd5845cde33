/**
 * The TypeScript SDK and the `cw` CLI as a publisher gets them: `npm pack` of libs/sdk/typescript
 * installed into a temporary project, used against the real local platform. Every list walked to
 * its end equals the API's pages; 429 is retried after its Retry-After; an idempotent retry after
 * a cut connection creates one link; errors carry code, detail and request_id; verifyPostback
 * accepts real postbacks and refuses tampering, old timestamps and wrong secrets; the events
 * stream resumes after a cut; `cw listen --forward-to` delivers a merchant's sale, signed, to a
 * local receiver; `cw login` stores an API key or an OAuth sign-in (0600).
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialsFile, Platform } from '../src/platform';
import {
  click,
  CookieBrowser,
  packAndInstallSdk,
  reportSale,
  setSaleStatus,
  startCutProxy,
  startReceiver,
  startSdkPlatform,
  type InstalledSdk,
} from './support/sdk-harness';

type Sdk = Awaited<ReturnType<InstalledSdk['load']>>;
type Json = Record<string, unknown>;

const run = promisify(execFile);
const OFFERS_BUDGET = 2;
// The budgets' window (60 s in production): the 429 test waits out at most this much of it.
const WINDOW_SECONDS = 3;

let platform: Platform & { credentials: CredentialsFile };
let installed: InstalledSdk;
let sdk: Sdk;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let postbackSecret: string;

const pub = () => platform.credentials.publishers[0]!;
const client = (opts: Partial<ConstructorParameters<Sdk['CwClient']>[0]> = {}) => new sdk.CwClient({ baseUrl: platform.url, apiKey: pub().keys.live, ...opts });

async function raw(path: string, headers: Record<string, string> = { 'X-API-Key': pub().keys.live }): Promise<Json> {
  const res = await fetch(`${platform.url}${path}`, { headers });
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return (await res.json()) as Json;
}

async function until<T>(f: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  platform = await startSdkPlatform({ RATELIMIT_OFFERS_PER_MIN: String(OFFERS_BUDGET), RATELIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) });
  installed = packAndInstallSdk();
  sdk = await installed.load();
  receiver = await startReceiver();
  // The postback goes to the local receiver (only the portal token may configure it).
  const put = await fetch(`${platform.url}/api/v1/publisher/postback/`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${pub().portal_token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/postback`, http_method: 'POST' }),
  });
  const config = (await put.json()) as Json;
  postbackSecret = String(config.secret ?? '');
  if (!postbackSecret.startsWith('whsec_')) {
    const rotated = await fetch(`${platform.url}/api/v1/publisher/postback/secret/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${pub().portal_token}` },
    });
    postbackSecret = String(((await rotated.json()) as Json).secret);
  }
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await platform?.stop();
});

describe('the packed package', () => {
  it('installs from its tarball with ESM, CommonJS and type declarations, and no runtime dependency', async () => {
    const manifest = JSON.parse(readFileSync(join(installed.project, 'node_modules/@cw-platform/sdk/package.json'), 'utf8')) as Json;
    expect(manifest.dependencies).toBeUndefined();
    const cjs = await run(process.execPath, ['-e', "const s = require('@cw-platform/sdk'); console.log(typeof s.CwClient, typeof s.verifyPostback)"], {
      cwd: installed.project,
    });
    expect(cjs.stdout.trim()).toBe('function function');
    expect(typeof sdk.CwClient).toBe('function');
    // A consumer's TypeScript (NodeNext, ESM and CommonJS alike) finds the declarations.
    writeFileSync(
      join(installed.project, 'esm.mts'),
      "import { CwClient, type Link } from '@cw-platform/sdk';\nconst l: Promise<Link> = new CwClient({ baseUrl: 'x' }).links.create({ program_id: 1 });\nvoid l;\n",
    );
    writeFileSync(
      join(installed.project, 'cjs.cts'),
      "import { verifyPostback } from '@cw-platform/sdk';\nexport const v: typeof verifyPostback = verifyPostback;\n",
    );
    writeFileSync(
      join(installed.project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023', 'dom'], types: [] },
        files: ['esm.mts', 'cjs.cts'],
      }),
    );
    const tsc = join(process.cwd(), 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: installed.project }).catch((e: { stdout: string }) => e);
    expect((checked as { stdout: string }).stdout).toBe('');
  });
});

describe('retries', () => {
  it('waits out a 429 for its Retry-After, then answers', async () => {
    // Spend the offers budget until it refuses: the client's first attempt meets it spent.
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${platform.url}/api/v1/publisher/offers/?country=${platform.credentials.fixtures.country}`, {
        headers: { Authorization: `Bearer ${pub().offers_credential}` },
      });
      await res.body?.cancel();
      if (res.status === 429) break;
      expect(res.status).toBe(200);
    }
    const retries: Array<{ status: number; retryAfterMs?: number; delayMs: number }> = [];
    const cw = client({ offersCredential: pub().offers_credential, onRetry: (e) => retries.push(e) });
    const started = Date.now();
    const page = await cw.offers({ country: platform.credentials.fixtures.country });
    expect(Array.isArray(page.data)).toBe(true);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.status).toBe(429);
    expect(retries[0]!.retryAfterMs).toBeGreaterThan(0);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(retries[0]!.retryAfterMs!);
    expect(Date.now() - started).toBeGreaterThanOrEqual(retries[0]!.retryAfterMs!);
  });

  it('does not retry a refusal that another attempt cannot change (401)', async () => {
    const retries: unknown[] = [];
    const err = await client({ apiKey: `live_${'A'.repeat(43)}`, onRetry: (e) => retries.push(e) })
      .me()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(sdk.CwApiError);
    expect(err).toMatchObject({ status: 401, code: 'not_authenticated' });
    expect((err as { request_id: string }).request_id).toMatch(/^req_/);
    expect(retries).toEqual([]);
  });

  it('retries a link creation cut before its answer under the same Idempotency-Key: one link', async () => {
    const proxy = await startCutProxy(platform.url);
    try {
      let cuts = 0;
      proxy.plan = (head) => (head.startsWith('POST /api/v1/publisher/links/') && cuts++ === 0 ? 'drop' : undefined);
      const retries: Array<{ code: string }> = [];
      const subid = `cut-${Date.now()}`;
      const link = await client({ baseUrl: proxy.url, onRetry: (e) => retries.push(e) }).links.create({
        program_id: platform.credentials.fixtures.approved_program_id,
        subid,
      });
      expect(retries.map((r) => r.code)).toEqual(['network_error']);
      const keys = proxy.requests.filter((h) => h.startsWith('POST')).map((h) => /idempotency-key: (\S+)/i.exec(h)?.[1]);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toBeTruthy();
      expect(keys[1]).toBe(keys[0]);
      const listed = await raw(`/api/v1/publisher/links/?subid=${subid}`);
      expect(listed.data).toEqual([link]);
    } finally {
      await proxy.close();
    }
  });

  it('sends a chosen Idempotency-Key, and none when turned off', async () => {
    const proxy = await startCutProxy(platform.url);
    try {
      const cw = client({ baseUrl: proxy.url });
      const body = { program_id: platform.credentials.fixtures.approved_program_id, subid: `key-${Date.now()}` };
      const a = await cw.links.create(body, { idempotencyKey: 'my-key-1' });
      const b = await cw.links.create(body, { idempotencyKey: false });
      expect(b.id).toBe(a.id);
      const heads = proxy.requests.filter((h) => h.startsWith('POST'));
      expect(heads[0]).toMatch(/idempotency-key: my-key-1/i);
      expect(heads[1]).not.toMatch(/idempotency-key/i);
    } finally {
      await proxy.close();
    }
  });

  it('never retries a write the server cannot deduplicate (a monetize request cut before its answer)', async () => {
    const proxy = await startCutProxy(platform.url);
    try {
      proxy.plan = (head) => (head.startsWith('POST') ? 'drop' : undefined);
      const err = await client({ baseUrl: proxy.url })
        .monetize.createLinks({ publisher_url: 'https://my-blog.example', placement_description: 'gear list in my running blog' })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 0, code: 'network_error' });
      expect(proxy.requests.filter((h) => h.startsWith('POST'))).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('lists', () => {
  /** Walks a list through plain HTTP by page number (or offset, or cursor for the events feed). */
  async function walkRaw(path: string, kind: 'page' | 'offset' | 'events', headers?: Record<string, string>): Promise<unknown[]> {
    const items: unknown[] = [];
    let n = 1;
    let offset = 0;
    let cursor: string | undefined;
    for (let i = 0; i < 500; i++) {
      const sep = path.includes('?') ? '&' : '?';
      const at = kind === 'page' ? `page=${n}` : kind === 'offset' ? `offset=${offset}` : cursor ? `cursor=${encodeURIComponent(cursor)}` : '';
      const page = await raw(at ? `${path}${sep}${at}` : path, headers);
      items.push(...((page.data ?? page.products) as unknown[]));
      if (kind === 'page' && !page.has_more) return items;
      if (kind === 'offset' && page.next_offset === null) return items;
      if (kind === 'events' && !page.has_more) return items;
      n++;
      offset = page.next_offset as number;
      cursor = page.next_cursor as string;
    }
    throw new Error('the list did not end');
  }

  it('iterates every list to its end, by cursor, equal to the API walked page by page', async () => {
    const cw = client({ reportingToken: pub().reporting_token });
    const rpt = { Authorization: `Bearer ${pub().reporting_token}` };
    // Two test events, so the deliveries list has two pages of one.
    await cw.postback.test();
    await cw.postback.test();
    const cases: Array<[string, AsyncIterable<unknown>, Promise<unknown[]>, number]> = [
      ['links', cw.links.list({ page_size: 10 }), walkRaw('/api/v1/publisher/links/?page_size=10', 'page'), 10],
      ['conversions', cw.conversions.list({ page_size: 50 }), walkRaw('/api/v1/publisher/conversions/?page_size=50', 'page'), 50],
      ['clicks', cw.clicks.list({ page_size: 200 }), walkRaw('/api/v1/publisher/clicks/?page_size=200', 'page'), 200],
      [
        'programs',
        cw.programs.list({ page_size: 1, include_available: true }),
        walkRaw('/api/v1/publisher/programs/?page_size=1&include_available=true', 'page'),
        1,
      ],
      ['postback deliveries', cw.postback.deliveries({ page_size: 1 }), walkRaw('/api/v1/publisher/postback/deliveries/?page_size=1', 'page'), 1],
      ['events', cw.events.list({ limit: 50 }), walkRaw('/api/v1/publisher/events/?limit=50', 'events'), 50],
      ['products', cw.products.search({ country: 'DE', limit: 40 }), walkRaw('/api/v1/publisher/products/?country=DE&limit=40', 'offset'), 40],
      ['reporting sales', cw.reporting.sales({ page_size: 50 }), walkRaw('/api/v1/affiliate-reporting/sales/?page_size=50', 'page', rpt), 50],
      ['reporting subid sales', cw.reporting.subidSales({ page_size: 50 }), walkRaw('/api/v1/affiliate-reporting/subid-sales/?page_size=50', 'page', rpt), 50],
      ['reporting events', cw.reporting.events.list({ limit: 50 }), walkRaw('/api/v1/affiliate-reporting/events/?limit=50', 'events', rpt), 50],
    ];
    for (const [name, iterable, expected, pageSize] of cases) {
      const got: unknown[] = [];
      for await (const item of iterable) got.push(item);
      const want = await expected;
      // More than one page, so the walk follows cursors.
      expect(want.length, name).toBeGreaterThan(pageSize);
      expect(got, name).toEqual(want);
    }
  }, 180_000);

  it('awaits a list as its first page', async () => {
    const page = await client().links.list({ page_size: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.next_cursor).toEqual(expect.any(String));
  });
});

describe('errors', () => {
  it('carry the API error body: code, detail, request_id and the parameter', async () => {
    const err = await client()
      .conversions.list({ status: 'bogus' as 'pending' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(sdk.CwApiError);
    const e = err as InstanceType<Sdk['CwApiError']>;
    expect(e).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(e.detail).toMatch(/status/);
    expect(e.request_id).toMatch(/^req_/);
    expect(e.errors.map((p) => p.param)).toContain('status');
  });

  it('says which credential a surface needs when the client has none for it', async () => {
    await expect(client().reporting.summary()).rejects.toMatchObject({ code: 'missing_credential' });
    const demo = await client({ apiKey: pub().keys.demo })
      .conversions.list()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(demo).toMatchObject({ status: 403 });
  });
});

describe('verifyPostback', () => {
  it('accepts a real postback and refuses a tampered body, an old timestamp and a wrong secret; any secret of a rotation verifies', async () => {
    const before = receiver.received.length;
    await client().postback.test();
    const got = await until(() => receiver.received.slice(before).find((r) => r.url === '/postback'));
    const event = await sdk.verifyPostback(got.headers, got.body, [postbackSecret]);
    expect(event).toMatchObject({ type: 'sale.created', test: true });
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: { reason: string }) => e.reason,
      );
    expect(await reason(sdk.verifyPostback(got.headers, got.body.replace('sale.created', 'sale.approved'), [postbackSecret]))).toBe('no_matching_signature');
    expect(await reason(sdk.verifyPostback(got.headers, got.body, [postbackSecret], { now: Date.now() + 10 * 60_000 }))).toBe('timestamp_outside_tolerance');
    expect(await reason(sdk.verifyPostback(got.headers, got.body, [sdk.generatePostbackSecret()]))).toBe('no_matching_signature');
    expect(await reason(sdk.verifyPostback(got.headers, got.body, [sdk.generatePostbackSecret(), postbackSecret]))).toBe('accepted');
    expect(await reason(sdk.verifyPostback({ ...got.headers, 'x-cw-signature': undefined }, got.body, [postbackSecret]))).toBe('missing_header');
  });

  it("accepts a merchant's real sale as delivered", async () => {
    const id = await reportSale(platform, await click(platform, pub().keys.live, 'verify'));
    const got = await until(() => receiver.received.find((r) => r.body.includes(id)));
    const event = await sdk.verifyPostback(new Headers(got.headers as Record<string, string>), new TextEncoder().encode(got.body), postbackSecret);
    expect(event).toMatchObject({ type: 'sale.created', conversion: { id, subid: 'verify', status: 'pending' } });
  });
});

describe('events.stream', () => {
  it('delivers events as they happen and resumes after a cut connection from the last cursor, nothing twice', async () => {
    const proxy = await startCutProxy(platform.url);
    const ac = new AbortController();
    try {
      let streams = 0;
      // The first stream is cut right after its first event.
      proxy.plan = (head) => (head.includes('/events/stream/') && streams++ === 0 ? (text) => /\nid: /.test(`\n${text}`) : undefined);
      const cw = client({ baseUrl: proxy.url });
      const cursor = await cw.events.latestCursor();
      /** Each reconnect, with the cursor of the last event delivered before it. */
      const reconnects: Array<{ cursor?: string; last?: string }> = [];
      // Every event the stream gives (an earlier test's sale may land after the cursor was read), and this test's own.
      const all: Array<{ type: string; id: string; cursor: string }> = [];
      const seen: typeof all = [];
      const reading = (async () => {
        for await (const e of cw.events.stream({
          cursor,
          signal: ac.signal,
          reconnectBaseMs: 50,
          onReconnect: (r) => reconnects.push({ ...r, last: all.at(-1)?.cursor }),
        })) {
          // Sale events only here (the feed also carries payout and inquiry events).
          if (!('conversion' in e.event)) continue;
          const event = { type: e.type, id: e.event.conversion.id ?? '', cursor: e.cursor };
          all.push(event);
          if (e.event.conversion.subid !== 'stream') continue;
          seen.push(event);
          if (seen.length === 2) ac.abort();
        }
      })();
      const id = await reportSale(platform, await click(platform, pub().keys.live, 'stream'));
      await until(() => (seen.length ? true : undefined));
      await setSaleStatus(platform, id, 'approved');
      await reading;
      expect(seen.map((e) => [e.type, e.id])).toEqual([
        ['sale.created', id],
        ['sale.approved', id],
      ]);
      // Nothing twice, across the cut.
      expect(new Set(all.map((e) => e.cursor)).size).toBe(all.length);
      expect(reconnects.length).toBeGreaterThanOrEqual(1);
      // The cut came after the first stream's first event (and any that arrived with it): it resumes from the last one.
      expect(reconnects[0]!.last).toBeDefined();
      expect(reconnects[0]!.cursor).toBe(reconnects[0]!.last);
      const streamHeads = proxy.requests.filter((h) => h.includes('/events/stream/'));
      expect(streamHeads[0]).toMatch(new RegExp(`last-event-id: ${cursor}`, 'i'));
      expect(streamHeads[1]).toMatch(new RegExp(`last-event-id: ${reconnects[0]!.last}`, 'i'));
    } finally {
      ac.abort();
      await proxy.close();
    }
  });
});

/** Runs the installed `cw` with only the environment given (no stored login unless CW_CONFIG_DIR has one). */
function cw(args: string[], env: Record<string, string> = {}) {
  return run(installed.bin, args, { env: { PATH: process.env.PATH!, HOME: mkdtempSync(join(tmpdir(), 'cw-home-')), ...env } });
}
const cwEnv = () => ({ CW_API_KEY: pub().keys.live, CW_BASE_URL: platform.url });

/** Lines of a running child's standard output (and error), as they come. */
function lines(child: ChildProcessWithoutNullStreams): { all: string[]; next(match: (l: string) => boolean): Promise<string> } {
  const all: string[] = [];
  let buf = '';
  const onData = (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop()!;
    all.push(...parts);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return { all, next: (match) => until(() => all.find(match), 20_000) };
}

describe('cw CLI', () => {
  it('searches products, creates a link, lists conversions and reports with CW_API_KEY and CW_BASE_URL', async () => {
    const products = JSON.parse((await cw(['products', 'search', 'running', 'shoe', '--country', 'DE', '--limit', '2', '--json'], cwEnv())).stdout) as Json;
    expect((products.products as unknown[]).length).toBeGreaterThan(0);
    const link = JSON.parse(
      (await cw(['links', 'create', '--program', String(platform.credentials.fixtures.approved_program_id), '--subid', 'cli', '--json'], cwEnv())).stdout,
    ) as Json;
    expect(link).toMatchObject({ subid: 'cli', url: expect.stringContaining('/c/') });
    const conversions = JSON.parse((await cw(['conversions', 'list', '--limit', '3', '--json'], cwEnv())).stdout) as unknown[];
    expect(conversions).toHaveLength(3);
    const report = JSON.parse((await cw(['reports', '--group-by', 'week', '--json'], cwEnv())).stdout) as Json;
    expect(report.group_by).toBe('week');
    const text = (await cw(['conversions', 'list', '--limit', '2'], cwEnv())).stdout;
    expect(text).toMatch(/2 conversions/);
    const refused = await cw(['whoami'], { CW_BASE_URL: platform.url }).catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('No credential') });
  });

  it('tails the events feed', async () => {
    const child = spawn(installed.bin, ['events', 'tail', '--from-start', '--json'], { env: { PATH: process.env.PATH!, ...cwEnv() } });
    try {
      const out = lines(child);
      const first = JSON.parse(await out.next((l) => l.startsWith('{'))) as { cursor: string; event: Json };
      expect(first.cursor).toMatch(/^evc1_/);
      expect(first.event.type).toMatch(/^sale\./);
    } finally {
      child.kill('SIGINT');
    }
  });

  it("listen --forward-to delivers a merchant's sale to a local receiver that verifies it with the SDK, retrying a failure", async () => {
    const local = await startReceiver();
    const child = spawn(installed.bin, ['listen', '--forward-to', `${local.url}/hook`, '--events', 'sale.created', '--json'], {
      env: { PATH: process.env.PATH!, ...cwEnv() },
    });
    try {
      const out = lines(child);
      const ready = JSON.parse(await out.next((l) => l.includes('"ready"'))) as { secret: string };
      expect(ready.secret).toMatch(/^whsec_/);
      // Delivery latency, from the merchant's report to the local POST (the first sale warms up).
      const latencies: number[] = [];
      for (let i = 0; i < 11; i++) {
        const clickId = await click(platform, pub().keys.live, `listen-${i}`);
        const started = Date.now();
        const id = await reportSale(platform, clickId);
        const got = await until(() => local.received.find((r) => r.body.includes(id)));
        latencies.push(got.at - started);
        const event = await sdk.verifyPostback(got.headers, got.body, [ready.secret]);
        expect(event).toMatchObject({ type: 'sale.created', conversion: { id, subid: `listen-${i}` } });
        expect(got.headers).toMatchObject({
          'x-cw-event': 'sale.created',
          'content-type': 'application/json',
          'user-agent': expect.stringContaining('CW-Postbacks'),
        });
        // The same body as the real postback of that sale (byte for byte).
        const real = await until(() => receiver.received.find((r) => r.body.includes(id)));
        expect(got.body).toBe(real.body);
      }
      const measured = latencies.slice(1).sort((a, b) => a - b);
      console.log(`cw listen: merchant report to local POST, ms: ${measured.join(', ')} (median ${measured[5]}, max ${measured.at(-1)})`);
      // The target is p99 <= 1 s; a shared test machine only holds it to a few seconds.
      expect(measured.at(-1)).toBeLessThan(5_000);
      // The approval is not in --events; a failing receiver is retried (same delivery id), a line per attempt.
      local.setStatus(503);
      const id = await reportSale(platform, await click(platform, pub().keys.live, 'listen-retry'));
      const failed = JSON.parse(await out.next((l) => l.includes(id) && l.includes('"ok":false'))) as Json;
      expect(failed).toMatchObject({ event: 'sale.created', attempt: 1, status: 503 });
      local.setStatus(204);
      const ok = JSON.parse(await out.next((l) => l.includes(id) && l.includes('"ok":true'))) as Json;
      expect(ok).toMatchObject({ attempt: 2, status: 204, delivery_id: failed.delivery_id });
      await setSaleStatus(platform, id, 'approved');
      await new Promise((r) => setTimeout(r, 800));
      expect(local.received.filter((r) => r.headers['x-cw-event'] === 'sale.approved')).toEqual([]);
    } finally {
      child.kill('SIGINT');
      await local.close();
    }
  }, 120_000);

  it('login stores an API key in the config directory, readable by its owner only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-config-'));
    await cw(['login', '--api-key', pub().keys.live, '--base-url', platform.url], { CW_CONFIG_DIR: dir });
    const file = join(dir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ base_url: platform.url, api_key: pub().keys.live });
    const me = JSON.parse((await cw(['whoami', '--json'], { CW_CONFIG_DIR: dir })).stdout) as Json;
    expect(me.account_id).toBe(pub().account_id);
  });

  it('login without a key signs in through the portal in the browser (OAuth, loopback redirect) and the CLI then acts for the account', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-config-'));
    const child = spawn(installed.bin, ['login', '--no-open', '--base-url', platform.url], { env: { PATH: process.env.PATH!, CW_CONFIG_DIR: dir } });
    const out = lines(child);
    const exited = new Promise<number | null>((ok) => child.on('exit', ok));
    const authorize = (await out.next((l) => l.includes('/oauth/authorize'))).trim();
    const back = await new CookieBrowser(platform.url).signInAndAllow(authorize, pub().portal_login, pub().account_id);
    expect(back).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    const page = await fetch(back);
    expect(await page.text()).toContain('Connected');
    expect(await exited, out.all.join('\n')).toBe(0);
    const file = join(dir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { oauth: { tokens: { refresh_token: string } } };
    expect(stored.oauth.tokens.refresh_token).toEqual(expect.any(String));
    const conversions = JSON.parse((await cw(['conversions', 'list', '--limit', '1', '--json'], { CW_CONFIG_DIR: dir })).stdout) as unknown[];
    expect(conversions).toHaveLength(1);
  });
});
