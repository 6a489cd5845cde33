import type { RequestListener } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape } from './http-assertions';
import { createTestDeps, type TestDeps } from './test-deps';

/** What every service answers the same way: unknown paths, and X-Request-Id handling. */
export function describeServiceBasics(name: string, createApp: (deps: TestDeps) => { callback(): RequestListener }): void {
  let deps: TestDeps;
  let server: RequestListener;

  beforeAll(async () => {
    deps = await createTestDeps();
    server = createApp(deps).callback();
  });
  afterAll(async () => deps?.close());

  describe(`${name} service basics`, () => {
    it('answers an unknown path with 404 in the error shape, with X-Request-Id and RateLimit headers', async () => {
      const res = await request(server).get('/definitely/not/here');
      expectErrorShape(res, 404, 'not_found');
    });

    it('tells browsers never to sniff an answer into another type (nosniff), errors included', async () => {
      for (const res of [
        await request(server).get('/definitely/not/here'),
        await request(server).post('/nope').set('Content-Type', 'application/json').send('{'),
      ])
        expect(res.headers['x-content-type-options'], `${res.status}`).toBe('nosniff');
    });

    it('echoes a safe caller X-Request-Id and replaces an unsafe one', async () => {
      const mine = await request(server).get('/nope').set('X-Request-Id', 'client-req-12345');
      expect(mine.headers['x-request-id']).toBe('client-req-12345');
      expect(mine.body.request_id).toBe('client-req-12345');
      const unsafe = await request(server).get('/nope').set('X-Request-Id', 'bad id <script>');
      expect(unsafe.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    });
  });
}
