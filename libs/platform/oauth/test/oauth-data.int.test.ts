/** The provider's storage on the embedded engine: the adapter's contract, and what the platform asks of grants. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';
import { oauthDomain, type GrantRevoked, type OAuthData, type OAuthModels } from '../src/data/oauth.data';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';

let engine: TestEngine;
let db: Database;
let oauth: OAuthData;
let models: OAuthModels;
const revoked: GrantRevoked[] = [];

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri);
  ({ models, handle: oauth } = oauthDomain.open(db.connection));
  await migrateIndexes(models);
  oauth.onGrantRevoked((e) => void revoked.push(e));
});
afterAll(async () => {
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

const now = () => Math.floor(Date.now() / 1000);
const adapter = (name: string) => new (oauth.adapterFactory())(name);

describe('the adapter', () => {
  it('stores a payload under its model and id, and finds it again; another model with the same id is another record', async () => {
    const codes = adapter('AuthorizationCode');
    const payload = { jti: 'c1', kind: 'AuthorizationCode', grantId: 'g1', exp: now() + 60, scope: 'openid' };
    await codes.upsert('c1', payload, 60);
    expect(await codes.find('c1')).toEqual(payload);
    expect(await adapter('RefreshToken').find('c1')).toBeUndefined();
    expect(await codes.find('nope')).toBeUndefined();
    const row = await models.OAuthRecord.findById('AuthorizationCode:c1').lean();
    expect(row).toMatchObject({ model: 'AuthorizationCode', grant_id: 'g1' });
    expect(row!.expires_at!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it('a consumed record is found with `consumed` set, and stays consumed when saved again', async () => {
    const tokens = adapter('RefreshToken');
    await tokens.upsert('r1', { jti: 'r1', kind: 'RefreshToken', grantId: 'g1' }, 600);
    expect(await tokens.find('r1')).not.toHaveProperty('consumed');
    await tokens.consume('r1');
    const found = await tokens.find('r1');
    expect(found?.consumed).toBeGreaterThanOrEqual(now() - 2);
    await tokens.upsert('r1', { jti: 'r1', kind: 'RefreshToken', grantId: 'g1' }, 600);
    expect((await tokens.find('r1'))?.consumed).toBeTruthy();
  });

  it('finds a session by its uid and a device code by its user code', async () => {
    const sessions = adapter('Session');
    await sessions.upsert('s1', { jti: 's1', kind: 'Session', uid: 'uid-1', accountId: 'usr_1' }, 3600);
    expect(await sessions.findByUid('uid-1')).toMatchObject({ jti: 's1', accountId: 'usr_1' });
    expect(await sessions.findByUid('uid-2')).toBeUndefined();
    expect(await adapter('Interaction').findByUid('uid-1')).toBeUndefined();
    const devices = adapter('DeviceCode');
    await devices.upsert('d1', { jti: 'd1', kind: 'DeviceCode', userCode: 'ABCD-EFGH' }, 600);
    expect(await devices.findByUserCode('ABCD-EFGH')).toMatchObject({ jti: 'd1' });
  });

  it('an expired record is not found, even before the TTL monitor removes it', async () => {
    const interactions = adapter('Interaction');
    await interactions.upsert('i1', { jti: 'i1', kind: 'Interaction' }, 60);
    await models.OAuthRecord.updateOne({ _id: 'Interaction:i1' }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect(await interactions.find('i1')).toBeUndefined();
  });

  it('keeps a record without expiry (registered clients) until it is destroyed', async () => {
    const clients = adapter('Client');
    await clients.upsert('app1', { client_id: 'app1', client_name: 'App', redirect_uris: ['https://app.example/cb'] });
    expect((await models.OAuthRecord.findById('Client:app1').lean())?.expires_at).toBeUndefined();
    expect((await oauth.clientsByIds(['app1', 'app2'])).get('app1')).toMatchObject({ clientName: 'App', redirectUris: ['https://app.example/cb'] });
    await clients.destroy('app1');
    expect(await clients.find('app1')).toBeUndefined();
  });

  it('revokeByGrantId removes that model’s records of that grant only', async () => {
    const tokens = adapter('RefreshToken');
    const codes = adapter('AuthorizationCode');
    await tokens.upsert('r2', { jti: 'r2', grantId: 'g2' }, 600);
    await tokens.upsert('r3', { jti: 'r3', grantId: 'g3' }, 600);
    await codes.upsert('c2', { jti: 'c2', grantId: 'g2' }, 60);
    await tokens.revokeByGrantId('g2');
    expect(await tokens.find('r2')).toBeUndefined();
    expect(await tokens.find('r3')).toBeDefined();
    expect(await codes.find('c2')).toBeDefined();
  });

  it('declares the TTL index on expires_at', async () => {
    const indexes = await models.OAuthRecord.collection.indexes();
    expect(indexes.find((i) => JSON.stringify(i.key) === '{"expires_at":1}')).toMatchObject({ expireAfterSeconds: 0 });
  });
});

describe('grants and their account', () => {
  const saveGrant = async (id: string, person = 'usr_1', client = 'app1') =>
    adapter('Grant').upsert(
      id,
      { jti: id, kind: 'Grant', accountId: person, clientId: client, iat: now(), exp: now() + 3600, resources: { 'https://x/api/v1/mcp': 'catalog:read' } },
      3600,
    );

  it('binds a grant to one account, once; a saved-again grant keeps it', async () => {
    await saveGrant('gA');
    expect(await oauth.grantAccount('gA')).toBeUndefined();
    expect(await oauth.grantById('gA')).toBeNull();
    expect(await oauth.bindGrantAccount('gA', 'pub_1')).toBe(true);
    expect(await oauth.bindGrantAccount('gA', 'pub_1')).toBe(true);
    expect(await oauth.bindGrantAccount('gA', 'pub_2')).toBe(false);
    expect(await oauth.bindGrantAccount('no-such-grant', 'pub_1')).toBe(false);
    await saveGrant('gA');
    expect(await oauth.grantAccount('gA')).toBe('pub_1');
    expect(await oauth.grantById('gA')).toMatchObject({
      grantId: 'gA',
      accountId: 'pub_1',
      personId: 'usr_1',
      clientId: 'app1',
      resources: { 'https://x/api/v1/mcp': ['catalog:read'] },
    });
  });

  it("lists an account's grants (not another's), with when a token of it was last used", async () => {
    await saveGrant('gB', 'usr_2');
    await oauth.bindGrantAccount('gB', 'pub_1');
    await saveGrant('gC');
    await oauth.bindGrantAccount('gC', 'pub_3');
    expect((await oauth.grantsOfAccount('pub_1')).map((g) => g.grantId).sort()).toEqual(['gA', 'gB']);
    oauth.noteGrantUse('gB');
    await expect.poll(async () => (await oauth.grantById('gB'))?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('destroying a grant (a reused refresh token, the revocation endpoint) removes it and tells the listeners which account it acted for', async () => {
    await saveGrant('gD');
    await oauth.bindGrantAccount('gD', 'pub_4');
    await adapter('RefreshToken').upsert('rD', { jti: 'rD', grantId: 'gD' }, 600);
    await adapter('Grant').destroy('gD');
    expect(await oauth.grantById('gD')).toBeNull();
    expect(revoked).toContainEqual({ grantId: 'gD', accountId: 'pub_4', clientId: 'app1', personId: 'usr_1' });
    // The portal's revocation also removes the grant's tokens.
    await saveGrant('gE');
    await oauth.bindGrantAccount('gE', 'pub_4');
    await adapter('RefreshToken').upsert('rE', { jti: 'rE', grantId: 'gE' }, 600);
    expect(await oauth.revokeGrant('gE', 'pub_5')).toBe(false);
    expect(await oauth.revokeGrant('gE', 'pub_4')).toBe(true);
    expect(await oauth.revokeGrant('gE', 'pub_4')).toBe(false);
    expect(await adapter('RefreshToken').find('rE')).toBeUndefined();
    expect(revoked.map((e) => e.grantId)).toEqual(['gD', 'gE']);
  });

  it('disabling an app hides it from the provider and revokes its grants; enabling it again brings back the app, not the grants', async () => {
    await adapter('Client').upsert('appX', { client_id: 'appX', client_name: 'X', redirect_uris: ['https://x.example/cb'] });
    await saveGrant('gX1', 'usr_1', 'appX');
    await oauth.bindGrantAccount('gX1', 'pub_7');
    await saveGrant('gX2', 'usr_2', 'appX');
    await oauth.bindGrantAccount('gX2', 'pub_8');
    revoked.length = 0;
    expect(await oauth.disableClient('appX')).toEqual({ found: true, grantsRevoked: 2 });
    expect(await adapter('Client').find('appX')).toBeUndefined();
    expect((await oauth.clientsByIds(['appX'])).get('appX')?.disabledAt).toBeInstanceOf(Date);
    expect(revoked.map((e) => [e.grantId, e.accountId]).sort()).toEqual([
      ['gX1', 'pub_7'],
      ['gX2', 'pub_8'],
    ]);
    expect(await oauth.grantById('gX1')).toBeNull();
    expect(await oauth.disableClient('no-such-app')).toEqual({ found: false, grantsRevoked: 0 });
    expect(await oauth.enableClient('appX')).toBe(true);
    expect(await adapter('Client').find('appX')).toMatchObject({ client_name: 'X' });
    expect(await oauth.grantById('gX2')).toBeNull();
  });
});
