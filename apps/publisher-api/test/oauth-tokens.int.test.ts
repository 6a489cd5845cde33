/**
 * Apps acting for a person through OAuth: the publisher API takes the provider's access tokens
 * beside API keys. Tokens are made as the portal's provider makes them (`storeGrant`,
 * `accessToken`: its adapter, its keys and claims), so what is tested is the resource server: scopes onto the use cases' policies,
 * the audience, expiry, and revocation, removal and roles applied at the next request.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, createTestDeps, expectErrorShape, storeGrant, type TestDeps } from '@cw-tools/testing';
import { createApp } from '../src/app';

let deps: TestDeps;
let http: ReturnType<ReturnType<typeof createApp>['callback']>;
let account: string;
let owner: string;
let analyst: string;
const BASE = '/api/v1/publisher';

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 50,
    env: {
      RATELIMIT_ACCOUNT_PER_MIN: '100000',
      RATELIMIT_PRODUCTS_PER_MIN: '100000',
      RATELIMIT_LINKS_PER_MIN: '100000',
      RATELIMIT_POSTBACKS_PER_MIN: '100000',
    },
  });
  http = createApp(deps).callback();
  account = deps.demo!.publishers[0]!.account_id;
  owner = String((await deps.models.User.findOne({ email: deps.demo!.publishers[0]!.portal_login.email }).lean())!._id);
  analyst = String((await deps.models.User.findOne({ email: deps.demo!.fixtures.analyst_login.email }).lean())!._id);
}, 60_000);
afterAll(() => deps?.close());

const grant = (personId: string, scopes: string) => storeGrant(deps, { personId, accountId: account, scopes });
const token = (t: { personId: string; grantId: string; scopes: string; audience?: 'publisherApi' | 'mcp'; expiresIn?: string }) =>
  accessToken(deps, { ...t, accountId: account, resource: t.audience });

const get = (path: string, bearer: string) => request(http).get(`${BASE}${path}`).set('Authorization', `Bearer ${bearer}`);

describe('access tokens on the publisher API', () => {
  it('act for the granting account within their scopes; outside them 403 insufficient_scope names the scope', async () => {
    const t = await token({ personId: owner, grantId: await grant(owner, 'catalog:read'), scopes: 'catalog:read' });
    const search = await get('/products/?country=DE&limit=2', t);
    expect(search.status).toBe(200);
    const paid = await get('/payment-status/', t);
    expectErrorShape(paid, 403, 'insufficient_scope');
    expect(paid.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="affiliate:read", resource_metadata="${new URL(deps.config.portalUrl).origin}/.well-known/oauth-protected-resource/api/v1/publisher"`,
    );
    const a = await token({ personId: owner, grantId: await grant(owner, 'affiliate:read'), scopes: 'affiliate:read' });
    const me = await get('/me/', a);
    expect(me.status).toBe(200);
    expect(me.body.account_id).toBe(account);
    expect((await get('/payment-status/', a)).status).toBe(200);
  });

  it('never write what no scope grants (postback changes), whatever the scopes', async () => {
    const all = 'affiliate:read catalog:read links:write reports:read postbacks:read';
    const t = await token({ personId: owner, grantId: await grant(owner, all), scopes: all });
    expect((await get('/postback/', t)).status).toBe(200);
    const put = await request(http).put(`${BASE}/postback/`).set('Authorization', `Bearer ${t}`).send({ url: 'https://receiver.example/pb' });
    expectErrorShape(put, 403, 'insufficient_scope');
  });

  it('refuse a token for the MCP resource, an expired one and a forged one with 401 invalid_token', async () => {
    const g = await grant(owner, 'affiliate:read');
    for (const t of [
      await token({ personId: owner, grantId: g, scopes: 'affiliate:read', audience: 'mcp' }),
      await token({ personId: owner, grantId: g, scopes: 'affiliate:read', expiresIn: '-1s' }),
      (await token({ personId: owner, grantId: g, scopes: 'affiliate:read' })).replace(/\.[^.]+$/, '.AAAA'),
    ]) {
      const res = await get('/me/', t);
      expectErrorShape(res, 401, 'not_authenticated');
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+\/api\/v1\/publisher"$/,
      );
    }
  });

  it('read the balance entries and payouts with affiliate:read, and request a payout only with payouts:write and as an owner', async () => {
    const read = await token({ personId: owner, grantId: await grant(owner, 'affiliate:read'), scopes: 'affiliate:read' });
    const entries = await get('/balance/transactions/?page_size=5', read);
    expect(entries.status).toBe(200);
    expect(entries.body.data.length).toBeGreaterThan(0);
    expect((await get('/payouts/', read)).status).toBe(200);
    const post = (bearer: string) =>
      request(http).post(`${BASE}/payouts/`).set('Authorization', `Bearer ${bearer}`).set('Content-Type', 'application/json').send('{}');
    const refused = await post(read);
    expectErrorShape(refused, 403, 'insufficient_scope');
    expect(refused.headers['www-authenticate']).toContain('scope="payouts:write"');
    // payouts:write alone requests, but reads nothing.
    const write = await token({ personId: owner, grantId: await grant(owner, 'payouts:write'), scopes: 'payouts:write' });
    expectErrorShape(await get('/payouts/', write), 403, 'insufficient_scope');
    const analystWrite = await token({ personId: analyst, grantId: await grant(analyst, 'payouts:write'), scopes: 'payouts:write' });
    expectErrorShape(await post(analystWrite), 403, 'role_not_allowed');
    const requested = await post(write);
    expect(requested.status, JSON.stringify(requested.body)).toBe(201);
    expect(requested.body).toMatchObject({ status: 'pending', method: { type: 'iban', last4: '3000' } });
    const one = await get(`/payouts/${requested.body.id}/`, read);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(requested.body.id);
  });

  it('stop at the next request once the grant is revoked, though the token was cached', async () => {
    const g = await grant(owner, 'affiliate:read');
    const t = await token({ personId: owner, grantId: g, scopes: 'affiliate:read' });
    expect((await get('/me/', t)).status).toBe(200);
    expect((await get('/me/', t)).status).toBe(200);
    expect(await deps.data.oauth.revokeGrant(g, account)).toBe(true);
    expectErrorShape(await get('/me/', t), 401, 'not_authenticated');
  });

  it('never do more than the person could: an analyst’s grant creates no link, and a person removed from the account stops', async () => {
    const g = await grant(analyst, 'links:write affiliate:read');
    const t = await token({ personId: analyst, grantId: g, scopes: 'links:write affiliate:read' });
    expect((await get('/links/', t)).status).toBe(200);
    const made = await request(http)
      .post(`${BASE}/links/`)
      .set('Authorization', `Bearer ${t}`)
      .send({ program_id: deps.demo!.fixtures.approved_program_id, subid: 'analyst-app' });
    expectErrorShape(made, 403, 'role_not_allowed');
    expect((await get('/me/', t)).status).toBe(200);
    await deps.models.AccountMember.deleteOne({ _id: `${account}:${analyst}`, account_id: account });
    expectErrorShape(await get('/me/', t), 401, 'not_authenticated');
    await deps.data.people.addMember(account, analyst, 'analyst');
  });
});
