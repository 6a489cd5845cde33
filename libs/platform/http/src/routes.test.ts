import Koa from 'koa';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializerFor } from '@cw/usecase';
import { buildRouter, mountRouter, responseSerializers, route } from './routes';

const ITEM = {
  type: 'object',
  properties: { id: { type: 'string' }, amount: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } },
} as const;

function app(
  handler: (ctx: Koa.Context) => void,
  responses = { 200: { description: 'An item', schema: ITEM }, 201: { description: 'Created', schema: ITEM } },
) {
  const koa = new Koa();
  mountRouter(koa, buildRouter('/v1', [route({ method: 'GET', path: '/item', operationId: 'getItem', summary: 'An item', responses, handler })]));
  return koa.callback();
}

describe('a route with a response schema', () => {
  // As production answers: the test run's strict check (CW_STRICT_RESPONSES, vitest.config.ts) is
  // off while this file's schemas compile; the strict answer is the last test's.
  const strict = process.env.CW_STRICT_RESPONSES;
  beforeAll(() => {
    delete process.env.CW_STRICT_RESPONSES;
  });
  afterAll(() => {
    process.env.CW_STRICT_RESPONSES = strict;
  });

  it('answers JSON written by the schema’s serializer: a property the schema does not declare is not sent', async () => {
    const server = app((ctx) => {
      ctx.body = { id: 'i_1', amount: '10.50', created_at: new Date(Date.UTC(2026, 0, 2)), internal_note: 'never sent' };
    });
    const res = await request(server).get('/v1/item');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe('{"id":"i_1","amount":"10.50","created_at":"2026-01-02T00:00:00.000Z"}');
  });

  it('writes the schema of the status answered', async () => {
    const server = app((ctx) => {
      ctx.status = 201;
      ctx.body = { id: 'i_2', extra: true };
    });
    const res = await request(server).get('/v1/item');
    expect(res.status).toBe(201);
    expect(res.text).toBe('{"id":"i_2"}');
  });

  it('sends bytes a handler already wrote as they are', async () => {
    const bytes = '{"id":"i_3","cached":"as written"}';
    const server = app((ctx) => {
      ctx.type = 'application/json';
      ctx.body = bytes;
    });
    const res = await request(server).get('/v1/item');
    expect(res.text).toBe(bytes);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers a status without a schema as JSON.stringify writes it', async () => {
    const server = app(
      (ctx) => {
        ctx.body = { id: 'i_4', extra: 1 };
      },
      { 200: { description: 'Anything' } } as never,
    );
    expect((await request(server).get('/v1/item')).text).toBe('{"id":"i_4","extra":1}');
  });

  it('shares its serializer with every other surface answering with the same schema', () => {
    expect(responseSerializers({ responses: { 200: { description: 'An item', schema: ITEM } } }).get(200)).toBe(serializerFor(ITEM));
  });

  it('in the test run, answers 500 where a handler returns a member its schema does not declare', async () => {
    process.env.CW_STRICT_RESPONSES = '1';
    const schema = { ...ITEM };
    const server = app(
      (ctx) => {
        ctx.body = { id: 'i_5', internal_note: 'not in the schema' };
      },
      { 200: { description: 'An item', schema }, 201: { description: 'Created', schema } },
    );
    expect((await request(server).get('/v1/item')).status).toBe(500);
  });
});
