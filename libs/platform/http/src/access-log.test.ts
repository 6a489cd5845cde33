import { Writable } from 'node:stream';
import Router from '@koa/router';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '@cw/logging';
import { createMemoryRateLimiter } from '@cw/ratelimit';
import { createServiceApp } from './service-app';

function appWithSink() {
  const out: string[] = [];
  const sink = new Writable({ write: (c, _e, cb) => (out.push(String(c)), cb()) });
  const app = createServiceApp({ name: 'svc', logger: createLogger({ name: 'svc', destination: sink }), limiter: createMemoryRateLimiter(), ipLimit: 1000 });
  const router = new Router();
  router.get('/items/:id', (ctx) => {
    ctx.state.principal = { publisher: { _id: 'pub_1' } };
    (ctx.state.log as Logger).warn({ item: ctx.params.id, lookup: { token: 'tok_never_logged' } }, 'looked up');
    ctx.body = { ok: true };
  });
  router.get('/boom', () => {
    throw new Error('database exploded');
  });
  app.use(router.routes());
  const lines = () =>
    out
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { server: app.callback(), lines };
}

describe('the request logger', () => {
  it("carries the request id and the account in a handler's lines, and the access line names the route template", async () => {
    const { server, lines } = appWithSink();
    const res = await request(server).get('/items/42').set('X-Request-Id', 'req_test_1234');
    expect(res.status).toBe(200);
    const [handler, access] = lines();
    expect(handler).toMatchObject({ msg: 'looked up', request_id: 'req_test_1234', account_id: 'pub_1', item: '42', lookup: { token: '[redacted]' } });
    // Access lines skip the redaction (nothing in them is a secret), not the logger's own fields.
    expect(access).toMatchObject({ msg: 'request', service: 'svc', route: '/items/:id', status: 200, request_id: 'req_test_1234', account_id: 'pub_1' });
    expect(Object.keys(access!).sort()).toEqual([
      'account_id',
      'duration_ms',
      'level',
      'method',
      'msg',
      'name',
      'request_id',
      'route',
      'service',
      'status',
      'time',
    ]);
  });

  it('logs an unhandled error with the request id, then one access line of the 500', async () => {
    const { server, lines } = appWithSink();
    const res = await request(server).get('/boom');
    expect(res.status).toBe(500);
    const [error, access, ...more] = lines();
    expect(more).toHaveLength(0);
    expect(error).toMatchObject({ msg: 'unhandled error', level: 50, request_id: res.body.request_id });
    expect(access).toMatchObject({ msg: 'request', route: '/boom', status: 500, request_id: res.body.request_id });
  });
});
