/** Postback configuration through HTTP: API keys and the portal token read, only the portal token writes; the secret is shown once and stored sealed. */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open } from '@cw/postbacks';
import { createTestDeps, expectErrorShape, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let strict: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
const pub = () => deps.demo!.publishers[0];
const put = (body: unknown, bearer = pub().portal_token, s = server) =>
  request(s)
    .put('/api/v1/publisher/postback/')
    .set('Authorization', `Bearer ${bearer}`)
    .send(body as object);

beforeAll(async () => {
  // Targets on a local receiver: allowed only when the setting says so (off by default).
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_POSTBACKS_PER_MIN: '100000', POSTBACK_ALLOW_INSECURE: 'true' } });
  server = createApp(deps).callback();
});
afterAll(async () => {
  await deps?.close();
  await strict?.close();
});

describe('postback configuration', () => {
  it('reads as not configured, is created with the portal token (201, secret once), then updated (200, no secret)', async () => {
    const empty = await request(server).get('/api/v1/publisher/postback/').set('X-API-Key', pub().keys.live);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ configured: false, url: null, has_secret: false });
    const created = await put({ url: 'http://127.0.0.1:9/cb?s={subid}&e={event}', http_method: 'GET', event_types: ['sale.approved'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ configured: true, http_method: 'GET', event_types: ['sale.approved'], active: true, has_secret: true });
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.secret_prefix).toBe(`${created.body.secret.slice(0, 10)}…`);
    const stored = (await deps.models.PostbackConfig.findById(pub().account_id).lean())!;
    expect(JSON.stringify(stored)).not.toContain(created.body.secret.slice(6));
    expect(open(deps.config.keys, stored.secret as never)).toBe(created.body.secret);

    const updated = await put({ url: 'http://127.0.0.1:9/v2?c={commission}' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      url: 'http://127.0.0.1:9/v2?c={commission}',
      http_method: 'POST',
      event_types: ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'],
    });
    expect(updated.body.secret).toBeUndefined();
    const read = await request(server).get('/api/v1/publisher/postback/').set('Authorization', `Bearer ${pub().keys.read_only}`);
    expect(read.body).toMatchObject({ configured: true, url: 'http://127.0.0.1:9/v2?c={commission}', secret_prefix: created.body.secret_prefix });
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
  });

  it('rotates the secret (shown once), keeping the previous one valid for 24 hours', async () => {
    const before = (await deps.models.PostbackConfig.findById(pub().account_id).lean())!;
    const res = await request(server).post('/api/v1/publisher/postback/secret/').set('Authorization', `Bearer ${pub().portal_token}`);
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    const hours = (Date.parse(res.body.previous_secret_valid_until) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const after = (await deps.models.PostbackConfig.findById(pub().account_id).lean())!;
    expect(open(deps.config.keys, after.previous_secret as never)).toBe(open(deps.config.keys, before.secret as never));
    expect(open(deps.config.keys, after.secret as never)).toBe(res.body.secret);
  });

  it('refuses every publisher API key kind with 403 postback_write_requires_portal, and 404s a rotation with nothing configured', async () => {
    for (const kind of ['live', 'test', 'sandbox', 'read_only', 'demo'] as const) {
      expectErrorShape(await put({ url: 'http://127.0.0.1:9/x' }, pub().keys[kind]), 403, 'postback_write_requires_portal');
      expectErrorShape(
        await request(server).post('/api/v1/publisher/postback/secret/').set('X-API-Key', pub().keys[kind]),
        403,
        'postback_write_requires_portal',
      );
    }
    expectErrorShape(
      await request(server).post('/api/v1/publisher/postback/secret/').set('Authorization', `Bearer ${deps.demo!.publishers[1].portal_token}`),
      404,
      'not_found',
    );
    expectErrorShape(await put({ url: 'http://127.0.0.1:9/x' }, pub().reporting_token), 401, 'not_authenticated');
    expectErrorShape(
      await request(server).get('/api/v1/publisher/postback/').set('Authorization', `Bearer ${pub().reporting_token}`),
      401,
      'not_authenticated',
    );
  });

  it('answers 400 naming the member for bad URLs, methods, event types and unknown members', async () => {
    for (const [body, param] of [
      [{ url: 'http://127.0.0.1/x?a={payout}' }, 'url'],
      [{ url: 'ftp://127.0.0.1/x' }, 'url'],
      [{ url: 'http://127.0.0.1/x', http_method: 'DELETE' }, 'http_method'],
      [{ url: 'http://127.0.0.1/x', event_types: ['sale.refunded'] }, 'event_types[0]'],
      [{ url: 'http://127.0.0.1/x', event_types: [] }, 'event_types'],
      [{ url: 'http://127.0.0.1/x', secret: 'mine' }, 'secret'],
      [{}, 'url'],
    ] as const) {
      const res = await put(body);
      expectErrorShape(res, 400);
      expect(res.body.errors.map((e: { param: string }) => e.param)).toContain(param);
    }
  });

  it('refuses http and non-public targets when insecure targets are not allowed (production)', async () => {
    strict = await createTestDeps({ seedProducts: 20, env: { POSTBACK_ALLOW_INSECURE: 'false' } });
    const s = createApp(strict).callback();
    const portal = strict.demo!.publishers[0].portal_token;
    for (const url of [
      'http://93.184.216.34/cb',
      'https://127.0.0.1/cb',
      'https://10.0.0.1/cb',
      'https://[::1]/cb',
      'https://[::ffff:169.254.169.254]/cb',
      'https://localhost/cb',
    ]) {
      const res = await put({ url }, portal, s);
      expectErrorShape(res, 400, 'invalid_parameter');
      expect(res.body.errors[0].param).toBe('url');
    }
    expect((await put({ url: 'https://93.184.216.34/cb?e={event}' }, portal, s)).status).toBe(201);
  });
});
