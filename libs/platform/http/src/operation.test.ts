import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { Middleware } from 'koa';
import type { Policy, Principal } from '@cw/auth';
import { useCase } from '@cw/usecase';
import { apiKeySurface, operation, portalSurface } from './operation';
import { buildRouter, mountRouter } from './routes';
import { toApiError } from './error.middleware';

const INPUT = { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' } } } as const;
const ITEM = { type: 'object', properties: { name: { type: 'string' } } } as const;
const WRITE: Policy = { budget: 'links', refuseKinds: ['read_only'], refuseDemoAccounts: true, roles: ['owner', 'developer'], scope: 'links:write' };
const READ: Policy = { budget: 'links', scope: 'links:write' };

const create = useCase(WRITE, async (_deps: object, _p: Principal, input: { name: string }) => ({ created: input.name !== 'old', item: input }), INPUT);
const list = useCase(READ, async () => ({ data: [] }));

const CREATE = operation({
  method: 'POST',
  path: '/items',
  operationId: 'createItem',
  summary: 'Create an item',
  tags: ['Items'],
  useCase: create,
  input: 'body',
  responses: { 200: { description: 'Existing', schema: ITEM }, 201: { description: 'Created', schema: ITEM }, 404: { description: 'Unknown program' } },
  result: (r) => ({ status: r.created ? 201 : 200, body: r.item }),
});
const LIST = operation({
  method: 'GET',
  path: '/items',
  operationId: 'listItems',
  summary: 'Items',
  tags: ['Items'],
  useCase: list,
  responses: { 200: { description: 'Items' } },
});

const member =
  (role: 'owner' | 'analyst'): Middleware =>
  async (ctx, next) => {
    ctx.state.principal = {
      publisher: { _id: 'pub_1', is_demo: false },
      credentialId: 's',
      prefix: 'session',
      type: 'portal_session',
      person: { role },
    } as unknown as Principal;
    await next();
  };

function portal(role: 'owner' | 'analyst') {
  const guards: string[] = [];
  const surface = portalSurface(
    {},
    {
      member: [member(role)],
      write: (_policy, route) => {
        guards.push(route);
        return [member(role)];
      },
      principal: (ctx) => ctx.state.principal as Principal,
      account: { type: 'string' },
    },
  );
  return { routes: [CREATE, LIST].map(surface), guards };
}

function serve(routes: ReturnType<typeof portal>['routes']) {
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = toApiError(err, ctx, []);
      if (!e) throw err;
      ctx.status = e.status;
      ctx.body = { code: e.code };
    }
  });
  mountRouter(koa, buildRouter('/portal/api', routes));
  return koa.callback();
}

describe('an operation declared once', () => {
  it('is served by the portal under the account, with the portal’s operationId, answering the status and body its result gives', async () => {
    const { routes, guards } = portal('owner');
    expect(routes.map((r) => [r.method, r.path, r.operationId])).toEqual([
      ['POST', '/accounts/:account/items', 'createAccountItem'],
      ['GET', '/accounts/:account/items', 'listAccountItems'],
    ]);
    expect(guards).toEqual(['POST /items']); // the write's Idempotency-Key under the API's route name
    const app = serve(routes);
    const created = await request(app).post('/portal/api/accounts/pub_1/items').send({ name: 'new' });
    expect([created.status, created.body]).toEqual([201, { name: 'new' }]);
    const existing = await request(app).post('/portal/api/accounts/pub_1/items').send({ name: 'old' });
    expect([existing.status, existing.body]).toEqual([200, { name: 'old' }]);
    const invalid = await request(app).post('/portal/api/accounts/pub_1/items').send({ name: 1 });
    expect(invalid.status).toBe(400);
  });

  it('refuses a member whose role the use case’s policy does not name, as its documents say', async () => {
    const { routes } = portal('analyst');
    const res = await request(serve(routes)).post('/portal/api/accounts/pub_1/items').send({ name: 'new' });
    expect([res.status, res.body.code]).toEqual([403, 'role_not_allowed']);
    expect(routes[0]!.responses[403]!.description).toMatch(/^role_not_allowed, credential_not_allowed or csrf_failed: owner or developer only/);
  });

  it('documents each surface’s standard errors from the policy, with the operation’s own', () => {
    const api = apiKeySurface({} as never, { security: ['ApiKeyHeader'], idempotent: () => async (_ctx, next) => next() });
    const write = api(CREATE as never);
    const read = api(LIST as never);
    expect(Object.keys(write.responses).map(Number)).toEqual([200, 201, 400, 401, 403, 404, 409, 429, 503]);
    expect(write.responses[403]!.description).toBe(
      'credential_not_allowed or insufficient_scope: demo or read_only keys, demo accounts; an OAuth access token without links:write',
    );
    expect(write.responses[404]!.description).toBe('Unknown program');
    // A read without input: no 400, no Idempotency-Key's 409.
    expect(Object.keys(read.responses).map(Number)).toEqual([200, 401, 403, 429, 503]);
    const [portalWrite] = portal('owner').routes;
    expect(portalWrite!.responses[404]!.description).toBe('Not a member of this account, or unknown program');
    expect(portalWrite!.before).toHaveLength(1);
  });
});
