/** The access log through the publisher API's HTTP surface: one line per request, its fields, never a secret. */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@cw/logging';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let server: ReturnType<ReturnType<typeof createApp>['callback']>;
let out: string[] = [];
const B = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
  const sink = new Writable({ write: (c, _e, cb) => (out.push(String(c)), cb()) });
  server = createApp({ ...deps, logger: createLogger({ name: 'publisher-api', destination: sink }) }).callback();
});
afterAll(async () => deps?.close());
beforeEach(() => {
  out = [];
});

const lines = () =>
  out
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const accessLines = () => lines().filter((l) => l.msg === 'request');
const pub = () => deps.demo!.publishers[0]!;

describe('access log', () => {
  it('writes one line per request with method, route template, status, duration, request id and account', async () => {
    const res = await request(server).get(`${B}/me/`).set('X-API-Key', pub().keys.live);
    expect(res.status).toBe(200);
    const access = accessLines();
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 30,
      service: 'publisher-api',
      method: 'GET',
      route: `${B}/me`,
      status: 200,
      request_id: res.headers['x-request-id'],
      account_id: pub().account_id,
    });
    expect(typeof access[0]!.duration_ms).toBe('number');
    expect(access[0]).not.toHaveProperty('trace_id');
  });

  it('logs the route template, not the path, and no account for an anonymous caller', async () => {
    const res = await request(server).get(`${B}/no-such-thing/42?x=1`);
    expect(res.status).toBe(404);
    const [line, ...more] = accessLines();
    expect(more).toHaveLength(0);
    expect(line).toMatchObject({ method: 'GET', route: 'unmatched', status: 404, request_id: res.body.request_id });
    expect(line).not.toHaveProperty('account_id');
    expect(JSON.stringify(line)).not.toContain('no-such-thing');
  });

  it('never writes a key or token sent in a header, a cookie or the query, whatever the answer', async () => {
    const key = pub().keys.live;
    const secrets = [key, 'live_not_a_real_key_123456', 'ptl_session_token_abcdef', 'whsec_query_secret_987'];
    await request(server).get(`${B}/me/`).set('Authorization', `Bearer ${key}`).set('Cookie', `session=${secrets[2]}`);
    await request(server).get(`${B}/me/?api_key=${secrets[1]}&access_secret=${secrets[3]}`).set('X-API-Key', secrets[1]!);
    await request(server).get(`${B}/products/?token=${secrets[2]}`).set('Authorization', `Bearer ${secrets[2]}`);
    expect(accessLines()).toHaveLength(3);
    expect(accessLines().map((l) => l.status)).toEqual([200, 401, 401]);
    const text = out.join('');
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).not.toMatch(/authorization|x-api-key|cookie/i);
  });
});
