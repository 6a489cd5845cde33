import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '@cw/db';
import { openPlatformData, type Models, type PlatformData } from '@cw/runtime';
import { verifyCredential, verifyMerchantToken } from '@cw/auth';
import { generateDemoData } from '@cw-tools/demo-data';
import { createTestDatabase, storeGrant, type TestDatabase } from '@cw-tools/testing';
import { loadConfig } from '@cw/config';
import { runCli } from '../src/cli';

let tdb: TestDatabase;
let db: Database;
let models: Models;
let data: PlatformData;
const dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
const env = () => ({ MONGODB_URI: tdb.uri });
/** Runs a command with --json; no answer of any command shows an internal `_id` (ids are named as the API names them). */
const admin = async (...args: string[]) => {
  const r = await runCli([...args, '--json'], env(), dir);
  expect(r.out).not.toContain('"_id"');
  return { code: r.code, body: JSON.parse(r.out) };
};

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = await connectDatabase(tdb.uri);
  ({ models, data } = openPlatformData(db.connection));
});
afterAll(async () => {
  await db?.close();
  await tdb?.stop();
});

describe('operator CLI', () => {
  it('sets up a merchant, a program and a publisher with an approved assignment', async () => {
    expect((await admin('merchant:create', '--id', '900', '--name', 'Shop', '--domains', 'shop.example')).code).toBe(0);
    const prog = await admin(
      'program:create',
      '--id',
      '9001',
      '--merchant',
      '900',
      '--name',
      'Shop DE',
      '--country',
      'de',
      '--landing-url',
      'https://www.shop.example/',
      '--auto-approve',
      '--click-id-param',
      'sub',
    );
    expect(prog).toMatchObject({ code: 0, body: { id: 9001, auto_approve: true, allowed_domains: ['shop.example'], click_id_param: 'sub' } });
    const pub = await admin('publisher:create', '--id', 'pub_cli', '--name', 'CLI Blog', '--markets', 'DE,GB');
    expect(pub.body).toMatchObject({ account_id: 'pub_cli', markets: ['DE', 'GB'], feed_access: true });
    expect((await admin('program:assign', '--publisher', 'pub_cli', '--program', '9001')).body).toMatchObject({ status: 'approved' });
    expect(await models.Membership.countDocuments({ publisher_id: 'pub_cli', program_id: 9001, status: 'approved' })).toBe(1);
    // Each act in the audit log, through the operator use cases; a second merchant 900 is refused.
    expect((await admin('merchant:create', '--id', '900', '--name', 'Again')).body.error).toContain('merchant 900 already exists');
    const acts = (await admin('audit:list', '--limit', '50')).body.data as Array<{ action: string; account_id?: string; detail: Record<string, unknown> }>;
    expect(acts.find((e) => e.action === 'merchant_created')?.detail).toMatchObject({ merchant_id: 900, name: 'Shop' });
    expect(acts.find((e) => e.action === 'program_created')?.detail).toMatchObject({ program_id: 9001, merchant_id: 900, auto_approve: true });
    expect(acts.find((e) => e.action === 'assignment_changed')).toMatchObject({ account_id: 'pub_cli', detail: { program_id: 9001, status: 'approved' } });
  });

  it('issues, lists, rotates and revokes credentials; secrets are shown once and never listed', async () => {
    const key = await admin('key:issue', '--publisher', 'pub_cli', '--kind', 'live');
    expect(key.body.secret).toMatch(/^live_[A-Za-z0-9_-]{43}$/);
    expect((await verifyCredential(data.auth, key.body.secret, ['api_key'])).publisher._id).toBe('pub_cli');
    const listed = await admin('credential:list', '--publisher', 'pub_cli');
    expect(JSON.stringify(listed.body)).not.toContain(key.body.secret);
    const rotated = await admin('credential:rotate', '--id', key.body.id);
    expect(rotated.body.secret).toMatch(/^live_/);
    await expect(verifyCredential(data.auth, key.body.secret, ['api_key'])).rejects.toMatchObject({ code: 'not_authenticated' });
    expect((await verifyCredential(data.auth, rotated.body.secret, ['api_key'])).publisher._id).toBe('pub_cli');
    const token = await admin('credential:issue', '--publisher', 'pub_cli', '--type', 'reporting_token');
    expect(token.body.secret).toMatch(/^rpt_/);
    expect((await admin('credential:revoke', '--id', token.body.id)).body.status).toBe('revoked');
    await expect(verifyCredential(data.auth, token.body.secret, ['reporting_token'])).rejects.toMatchObject({ status: 401 });
  });

  it('imports a CSV and a Google Shopping XML catalog, rejecting bad rows with reasons', async () => {
    const csv = join(dir, 'feed.csv');
    writeFileSync(
      csv,
      'id,title,link,price,availability,gtin,brand\n1,Trail Shoe,https://www.shop.example/p/1,129.95 EUR,in stock,4006381333931,Kestrel\n2,Bad,https://www.shop.example/p/2,12.00 EUR,in stock,4006381333932,X\n',
    );
    const r = await admin('catalog:import', '--file', csv, '--program', '9001', '--country', 'DE');
    expect(r.body).toMatchObject({ rows: 2, imported: 1, rejected: 1 });
    expect(r.body.rejections[0].reason).toContain('invalid gtin');
    const xml = join(dir, 'feed.xml');
    writeFileSync(
      xml,
      `<?xml version="1.0"?><rss xmlns:g="http://base.google.com/ns/1.0" version="2.0"><channel><item><g:id>9</g:id><title>Espresso Machine</title><link>https://www.shop.example/p/9</link><g:price>649.00 EUR</g:price><g:availability>preorder</g:availability><g:gtin>0012345678905</g:gtin></item></channel></rss>`,
    );
    expect((await admin('catalog:import', '--file', xml, '--program', '9001', '--country', 'DE')).body).toMatchObject({ imported: 1, rejected: 0 });
    const row = await models.Product.findOne({ gtin: '0012345678905' }).lean();
    expect(row).toMatchObject({ availability: 'preorder', currency: 'EUR', program_id: 9001, country: 'DE' });
    expect(row!.price.toString()).toBe('649.00');
  });

  it('lists publishers, merchants and programs with the ids and names the API uses', async () => {
    const pubs = await admin('publisher:list');
    expect(pubs.code).toBe(0);
    expect(pubs.body.find((p: { account_id: string }) => p.account_id === 'pub_cli')).toMatchObject({
      name: 'CLI Blog',
      status: 'active',
      markets: ['DE', 'GB'],
      feed_access: true,
    });
    expect((await admin('publisher:list', '--status', 'inactive')).body.every((p: { status: string }) => p.status === 'inactive')).toBe(true);
    expect((await admin('merchant:list')).body).toContainEqual({ id: 900, name: 'Shop', domains: ['shop.example'] });
    const programs = await admin('program:list', '--merchant', '900');
    expect(programs.body).toEqual([
      expect.objectContaining({ id: 9001, name: 'Shop DE', merchant: { id: 900, name: 'Shop' }, status: 'active', countries: ['DE'], auto_approve: true }),
    ]);
    expect(await admin('program:list', '--status', 'sleeping')).toMatchObject({ code: 2 });
    const human = await runCli(['program:list', '--merchant', '900'], env(), dir);
    expect(human.out).toContain('Shop DE');
    expect(human.out).not.toContain('_id');
  });

  it('approves and rejects accounts signed up in the portal (pending review), and only those', async () => {
    await data.auth.createPublishers([
      { _id: 'pub_signup_a', name: 'Signed Up A', status: 'pending', feed_access: false },
      { _id: 'pub_signup_b', name: 'Signed Up B', status: 'pending', feed_access: false },
    ]);
    const pending = (await admin('publisher:list', '--status', 'pending')).body.map((p: { account_id: string }) => p.account_id);
    expect(pending).toEqual(expect.arrayContaining(['pub_signup_a', 'pub_signup_b']));
    expect((await admin('publisher:approve', '--publisher', 'pub_signup_a')).body).toEqual({ account_id: 'pub_signup_a', status: 'active' });
    expect(await data.auth.publisherById('pub_signup_a')).toMatchObject({ status: 'active', feed_access: true });
    expect((await admin('publisher:reject', '--publisher', 'pub_signup_b')).body).toEqual({ account_id: 'pub_signup_b', status: 'inactive' });
    const again = await runCli(['publisher:approve', '--publisher', 'pub_signup_a'], env(), dir);
    expect(again.code).not.toBe(0);
    expect(again.out).toMatch(/only pending accounts are reviewed/);
  });

  it('disables an OAuth app (its grants revoked, it can no longer be found by the provider) and enables it again', async () => {
    const Client = data.oauth.adapterFactory();
    await new Client('Client').upsert('app_cli', { client_id: 'app_cli', client_name: 'CLI agent', redirect_uris: ['http://127.0.0.1:9/cb'] });
    const config = loadConfig({}, { port: 0 });
    const grant = await storeGrant({ data, config }, { personId: 'usr_cli', accountId: 'pub_cli', scopes: 'catalog:read', clientId: 'app_cli' });
    expect(await data.oauth.grantById(grant)).not.toBeNull();
    expect((await admin('oauth-app:disable', '--client', 'app_cli')).body).toEqual({ client_id: 'app_cli', disabled: true, grants_revoked: 1 });
    expect(await data.oauth.grantById(grant)).toBeNull();
    expect(await new Client('Client').find('app_cli')).toBeUndefined();
    expect((await admin('oauth-app:enable', '--client', 'app_cli')).body).toEqual({ client_id: 'app_cli', disabled: false });
    expect(await new Client('Client').find('app_cli')).toMatchObject({ client_name: 'CLI agent' });
    expect((await runCli(['oauth-app:disable', '--client', 'nope'], env(), dir)).code).not.toBe(0);
  });

  it('says at once that the local platform is not running when its info file outlived it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'admin-cli-stopped-'));
    mkdirSync(join(root, '.local'));
    writeFileSync(join(root, '.local/platform.json'), JSON.stringify({ url: 'http://127.0.0.1:1', mongodb_uri: 'mongodb://127.0.0.1:1/x', pid: 2 ** 22 + 1 }));
    // The answer names the cause without trying to connect (a connection attempt would end in ECONNREFUSED).
    const r = await runCli(['publisher:list'], {}, root);
    expect(r).toEqual({ code: 2, out: 'error: no database: the local platform is not running (start it with `npm start`), and MONGODB_URI is not set' });
    expect((await runCli(['publisher:list', '--help'], {}, root)).out).toMatch(/^usage: npm run admin -- publisher:list/);
  });

  it('answers bad input with a clear message and exit code 2', async () => {
    expect(await admin('nope')).toMatchObject({ code: 2 });
    expect((await admin('key:issue', '--publisher', 'pub_cli', '--kind', 'gold')).body.error).toContain('--kind must be one of');
    expect((await admin('key:issue', '--kind', 'live')).body.error).toContain('--publisher');
    expect((await admin('program:assign', '--publisher', 'pub_none', '--program', '9001')).body.error).toContain('does not exist');
    expect((await admin('publisher:create', '--name', 'X', '--markets', 'Germany')).code).toBe(2);
    expect((await runCli(['merchant:create', '--id', 'x', '--name', 'y'], env(), dir)).out).toMatch(/^error: --id must be a positive integer/);
  });

  it('issues merchant tokens and changes conversion statuses through the lifecycle, one id or a CSV of ids', async () => {
    await generateDemoData({ models, data }, { products: 200, linkKey: Buffer.alloc(32, 1) });
    const issued = await admin('merchant-token:issue', '--merchant', '501');
    expect(issued.body.secret).toMatch(/^mrc_[A-Za-z0-9_-]{43}$/);
    expect((await verifyMerchantToken(data.auth, issued.body.secret)).merchantId).toBe(501);
    expect((await admin('merchant-token:issue', '--merchant', '999999')).code).toBe(2);
    const rotated = await admin('credential:rotate', '--id', issued.body.id);
    expect(rotated.body.secret).toMatch(/^mrc_/);
    expect((await verifyMerchantToken(data.auth, rotated.body.secret)).merchantId).toBe(501);
    await expect(verifyMerchantToken(data.auth, issued.body.secret)).rejects.toMatchObject({ code: 'not_authenticated' });
    expect((await admin('credential:revoke', '--id', rotated.body.id)).body.status).toBe('revoked');
    await expect(verifyMerchantToken(data.auth, rotated.body.secret)).rejects.toMatchObject({ code: 'not_authenticated' });

    const pending = (await admin('conversion:list', '--publisher', 'pub_trailhead', '--status', 'pending', '--limit', '5')).body as Array<{
      id: string;
      status: string;
      order_id: string;
    }>;
    expect(pending.length).toBe(5);
    expect(pending.every((c) => c.status === 'pending' && c.order_id.startsWith('ORD-'))).toBe(true);
    const [first, second, third] = pending;
    expect((await admin('conversion:approve', '--id', first.id)).body).toEqual({ id: first.id, status: 'approved' });
    expect((await models.Conversion.findById(first.id).lean())!.events.map((e) => e.type)).toEqual(['sale.created', 'sale.approved']);
    expect(await admin('conversion:reverse', '--id', second.id)).toMatchObject({ code: 2 });
    expect((await admin('conversion:reverse', '--id', first.id)).body).toEqual({ id: first.id, status: 'declined' });
    expect((await models.Conversion.findById(first.id).lean())!.events.map((e) => e.type)).toEqual(['sale.created', 'sale.approved', 'sale.reversed']);

    const ids = join(dir, 'ids.csv');
    writeFileSync(ids, `conversion_id\n${second.id}\n${third.id}\ncnv_missing\n${first.id}\n`);
    const bulk = await admin('conversion:decline', '--file', ids);
    expect(bulk.body).toMatchObject({ changed: 2, failed: 2 });
    expect(bulk.body.errors.map((e: { id: string }) => e.id).sort()).toEqual([first.id, 'cnv_missing'].sort());
    expect(await models.Conversion.countDocuments({ _id: { $in: [second.id, third.id] }, status: 'declined' })).toBe(2);
  });

  it('books ledger entries that count as approved commission, and refuses bad amounts', async () => {
    const entry = await admin('ledger:add', '--publisher', 'pub_trailhead', '--amount=-12.50', '--currency', 'eur', '--reason', 'Chargeback');
    expect(entry.body).toMatchObject({
      source: 'ledger',
      status: 'approved',
      commission: '-12.50',
      currency: 'EUR',
      reason: 'Chargeback',
      publisher_id: 'pub_trailhead',
    });
    expect(await admin('ledger:add', '--publisher', 'pub_trailhead', '--amount', 'ten', '--currency', 'EUR', '--reason', 'x')).toMatchObject({ code: 2 });
    expect(await admin('ledger:add', '--publisher', 'pub_nobody', '--amount', '1', '--currency', 'EUR', '--reason', 'x')).toMatchObject({ code: 2 });
    expect(await admin('ledger:add', '--publisher', 'pub_trailhead', '--amount', '1', '--currency', 'XYZ', '--reason', 'x')).toMatchObject({ code: 2 });
  });

  it('rebuilds the stats read model from the raw rows: repairs a damaged cell, then finds nothing to change', { timeout: 180_000 }, async () => {
    const first = await admin('stats:rebuild', '--publisher', 'pub_trailhead');
    expect(first.code).toBe(0);
    expect(first.body).toMatchObject({ accounts: 1 });
    expect(first.body.months).toBeGreaterThan(0);
    const cell = (await models.Stat.findOne({ publisher_id: 'pub_trailhead', v: 'p', g: 'm' }).lean())!;
    await models.Stat.updateOne({ _id: cell._id, publisher_id: 'pub_trailhead' }, { $inc: { 'c.m': 5 } });
    expect((await admin('stats:rebuild', '--publisher', 'pub_trailhead')).body).toMatchObject({ accounts: 1, cells_changed: 1 });
    expect((await models.Stat.findById(cell._id).lean())!.c).toEqual(cell.c);
    // Every account (the others' changes were never counted: no worker runs here), then nothing left.
    expect((await admin('stats:rebuild', '--from', '2020-01-01')).code).toBe(0);
    expect((await admin('stats:rebuild')).body).toMatchObject({ cells_changed: 0 });
    expect(await admin('stats:rebuild', '--from', '2020-13-45')).toMatchObject({ code: 2 });
    expect(await admin('stats:rebuild', '--publisher', 'pub_nobody')).toMatchObject({ code: 2 });
  });

  it('goes on with stats:rebuild where a stopped run was (--after), reporting its throughput', { timeout: 180_000 }, async () => {
    // --after an account skips it; --after a month of it does the months after that one only.
    expect((await admin('stats:rebuild', '--publisher', 'pub_trailhead', '--after', 'pub_trailhead')).body).toMatchObject({ accounts: 0, months: 0 });
    const whole = (await admin('stats:rebuild', '--publisher', 'pub_trailhead')).body;
    expect(whole.rows).toBeGreaterThan(0);
    expect(whole.rows_per_s).toBeGreaterThan(0);
    expect((await admin('stats:rebuild', '--publisher', 'pub_trailhead', '--after', 'pub_trailhead@2000-01')).body).toMatchObject({ months: whole.months });
    expect((await admin('stats:rebuild', '--publisher', 'pub_trailhead', '--after', 'pub_trailhead@2999-01')).body).toMatchObject({ accounts: 1, months: 0 });
    expect(await admin('stats:rebuild', '--after', 'pub_trailhead@2026-13')).toMatchObject({ code: 2 });
  });

  it('builds the stats roll-ups an account lacks, resumably: a rerun builds nothing', async () => {
    await models.StatRollup.deleteMany({ publisher_id: 'pub_trailhead' });
    const first = await admin('stats:rollups', '--publisher', 'pub_trailhead');
    expect(first.code).toBe(0);
    expect(first.body).toMatchObject({ accounts: 1 });
    expect(first.body.built).toBeGreaterThan(0);
    expect(await models.StatRollup.countDocuments({ publisher_id: 'pub_trailhead', ok: true })).toBe(first.body.built);
    expect((await admin('stats:rollups', '--publisher', 'pub_trailhead')).body).toMatchObject({ accounts: 1, built: 0 });
    expect(await admin('stats:rollups', '--from', 'soon')).toMatchObject({ code: 2 });
    expect(await admin('stats:rollups', '--publisher', 'pub_nobody')).toMatchObject({ code: 2 });
  });

  it('creates, lists and ends offers; refuses bad types, dates and a voucher without a code', async () => {
    const created = await admin(
      'offer:create',
      '--program',
      '1001',
      '--type',
      'voucher',
      '--title',
      'Ten off',
      '--code',
      'TEN',
      '--country',
      'de',
      '--ends',
      '2099-01-01',
    );
    expect(created.body).toMatchObject({ program_id: 1001, type: 'voucher', code: 'TEN', country: 'DE', ended_at: null });
    const id = created.body.id as string;
    const future = await admin(
      'offer:create',
      '--program',
      '1001',
      '--type',
      'deal',
      '--title',
      'Later',
      '--country',
      'DE',
      '--starts',
      '2098-01-01',
      '--ends',
      '2099-01-01',
    );
    const listed = await admin('offer:list', '--program', '1001');
    const states = Object.fromEntries(listed.body.map((o: { id: string; state: string }) => [o.id, o.state]));
    expect(states).toMatchObject({ [id]: 'running', [future.body.id]: 'future' });
    expect((await admin('offer:end', '--id', id)).body).toEqual({ id, ended: true });
    expect((await admin('offer:list', '--program', '1001')).body.find((o: { id: string }) => o.id === id).state).toBe('ended');
    expect(await admin('offer:end', '--id', id)).toMatchObject({ code: 2 });
    expect(await admin('offer:create', '--program', '1001', '--type', 'coupon', '--title', 'x', '--country', 'DE', '--ends', '2099-01-01')).toMatchObject({
      code: 2,
    });
    expect(await admin('offer:create', '--program', '1001', '--type', 'voucher', '--title', 'x', '--country', 'DE', '--ends', '2099-01-01')).toMatchObject({
      code: 2,
    });
    expect(await admin('offer:create', '--program', '1001', '--type', 'deal', '--title', 'x', '--country', 'DE', '--ends', 'soon')).toMatchObject({ code: 2 });
    expect(
      await admin('offer:create', '--program', '1001', '--type', 'deal', '--title', 'x', '--country', 'DE', '--starts', '2099-01-02', '--ends', '2099-01-01'),
    ).toMatchObject({ code: 2 });
    expect(await admin('offer:create', '--program', '999999', '--type', 'deal', '--title', 'x', '--country', 'DE', '--ends', '2099-01-01')).toMatchObject({
      code: 2,
    });
    // Created and ended through the offers' operator use cases: audited once each (the refused end is not).
    const acts = (await admin('audit:list', '--limit', '100')).body.data as Array<{ action: string; detail: Record<string, unknown> }>;
    expect(acts.filter((e) => e.action === 'offer_ended').map((e) => e.detail.offer_id)).toEqual([id]);
    expect(acts.filter((e) => e.action === 'offer_created').map((e) => e.detail.offer_id)).toEqual(expect.arrayContaining([id, future.body.id]));
  });

  it('lists, approves and rejects instant-monetization applications; approval issues a working API key', async () => {
    const now = new Date();
    const app = (id: string, status: 'under_review' | 'provisional') => ({
      _id: id,
      secret_hash: 'x'.repeat(64),
      publisher_id: `pub_mon_${id.slice(4)}`,
      status,
      source: 'links' as const,
      address_hash: 'a'.repeat(32),
      claim_deadline: new Date(now.getTime() - 1000),
      profile: { display_name: 'Claimed Blog', country: 'DE', claim_email: 'me@claimed.example', channels: ['content'] },
      created_at: now,
      updated_at: now,
    });
    await models.Publisher.create([
      { _id: 'pub_mon_review1', name: 'x', status: 'provisional' as const },
      { _id: 'pub_mon_spam1', name: 'y', status: 'provisional' as const },
    ]);
    await models.MonetizeApplication.create([app('app_review1', 'under_review'), app('app_spam1', 'provisional')]);
    const listed = await admin('monetize:list', '--status', 'under_review');
    expect(listed.body.map((a: { application_id: string }) => a.application_id)).toEqual(['app_review1']);
    expect(listed.body[0]).toMatchObject({ overdue: true, profile: { claim_email: 'me@claimed.example' } });
    expect(JSON.stringify(listed.body)).not.toContain('secret_hash');
    const approved = await admin('monetize:approve', '--id', 'app_review1');
    expect(approved.body).toMatchObject({ status: 'approved', account_id: 'pub_mon_review1' });
    const principal = await verifyCredential(data.auth, approved.body.api_key.secret, ['api_key']);
    expect(principal.publisher).toMatchObject({ _id: 'pub_mon_review1', status: 'active', name: 'Claimed Blog', markets: ['DE'] });
    expect(await admin('monetize:approve', '--id', 'app_spam1')).toMatchObject({ code: 2 });
    expect((await admin('monetize:reject', '--id', 'app_spam1', '--note', 'spam')).body).toMatchObject({ status: 'rejected' });
    expect(await admin('monetize:reject', '--id', 'app_spam1')).toMatchObject({ code: 2 });
    expect(await admin('monetize:list', '--status', 'pending')).toMatchObject({ code: 2 });
  });

  it('creates and releases trending plans and subscribes accounts; refuses bad items, channels and programs', async () => {
    const items = JSON.stringify([
      { program_id: 1001, title: 'Shoes', score: 0.9 },
      { program_id: 1003, title: 'Audio', score: 0.5, landing_url: 'https://www.klangwerk.example/sale' },
    ]);
    const plan = await admin('trending:plan-create', '--title', 'Week 48', '--country', 'de', '--channel', 'content', '--items', items);
    expect(plan.body).toMatchObject({ country: 'DE', channel: 'content', released_at: null });
    expect(plan.body.items.map((i: { program_id: number }) => i.program_id)).toEqual([1001, 1003]);
    expect((await admin('trending:plan-release', '--id', plan.body.id)).body).toEqual({ id: plan.body.id, released: true });
    expect((await models.TrendingPlan.findById(plan.body.id).lean())!.released_at).toBeInstanceOf(Date);
    expect(await admin('trending:plan-release', '--id', plan.body._id)).toMatchObject({ code: 2 });
    for (const bad of [
      'not json',
      '[{"program_id":999999,"title":"x","score":0.5}]',
      '[{"program_id":1001,"title":"x","score":7}]',
      '[{"program_id":"1001","title":"x","score":0.5}]',
      '[]',
    ]) {
      expect(await admin('trending:plan-create', '--title', 'x', '--country', 'DE', '--channel', 'content', '--items', bad), bad).toMatchObject({ code: 2 });
    }
    expect(await admin('trending:plan-create', '--title', 'x', '--country', 'DE', '--channel', 'radio', '--items', items)).toMatchObject({ code: 2 });
    expect((await admin('publisher:subscribe-trending', '--publisher', 'pub_dealradar', '--channels', 'coupon,social')).body).toEqual({
      account_id: 'pub_dealradar',
      trending_subscribed: true,
      trending_channels: ['coupon', 'social'],
    });
    expect((await admin('publisher:subscribe-trending', '--publisher', 'pub_dealradar', '--channels', 'none')).body).toMatchObject({
      trending_subscribed: false,
      trending_channels: [],
    });
    expect(await admin('publisher:subscribe-trending', '--publisher', 'pub_dealradar', '--channels', 'tv')).toMatchObject({ code: 2 });
    expect(await admin('publisher:subscribe-trending', '--publisher', 'pub_nobody', '--channels', 'coupon')).toMatchObject({ code: 2 });
    const acts = (await admin('audit:list', '--limit', '100')).body.data as Array<{ action: string; account_id?: string; detail: Record<string, unknown> }>;
    expect(acts.find((e) => e.action === 'trending_plan_created')?.detail).toMatchObject({
      plan_id: plan.body.id,
      country: 'DE',
      channel: 'content',
      items: 2,
    });
    expect(acts.filter((e) => e.action === 'trending_plan_released').map((e) => e.detail.plan_id)).toEqual([plan.body.id]);
    expect(acts.filter((e) => e.action === 'publisher_trending_changed' && e.account_id === 'pub_dealradar').map((e) => e.detail.channels)).toEqual([
      [],
      ['coupon', 'social'],
    ]);
  });

  it("regenerates a market's feed files and flags comparison sites", async () => {
    const r = await admin('feed:regenerate', '--country', 'de');
    expect(r.body).toMatchObject({ country: 'DE', files: expect.any(Number), products: expect.any(Number) });
    expect(r.body.files).toBeGreaterThan(0);
    expect((await models.MarketState.findById('DE').lean())!.generated_at).toBeInstanceOf(Date);
    expect(await admin('feed:regenerate', '--country', 'Germany')).toMatchObject({ code: 2 });
    expect((await admin('publisher:set-comparison-site', '--publisher', 'pub_dealradar')).body).toEqual({ account_id: 'pub_dealradar', comparison_site: true });
    expect((await models.Publisher.findById('pub_dealradar').lean())!.comparison_site).toBe(true);
    expect((await admin('publisher:set-comparison-site', '--publisher', 'pub_dealradar', '--off')).body.comparison_site).toBe(false);
    expect(await admin('publisher:set-comparison-site', '--publisher', 'pub_nobody')).toMatchObject({ code: 2 });
  });

  it('lists deliveries and redelivers one, or every dead one of an account', async () => {
    const now = new Date();
    const base = { publisher_id: 'pub_trailhead', event: 'sale.created', body: '{}', attempts: 8, created_at: now, updated_at: now };
    await models.PostbackDelivery.create([
      { ...base, _id: 'dlv_dead1', event_id: 'e1', status: 'dead' },
      { ...base, _id: 'dlv_dead2', event_id: 'e2', status: 'dead' },
      { ...base, _id: 'dlv_ok', event_id: 'e3', status: 'succeeded', attempts: 1 },
    ]);
    const dead = await admin('postback:deliveries', '--publisher', 'pub_trailhead', '--status', 'dead');
    expect(dead.body.map((d: { id: string }) => d.id).sort()).toEqual(['dlv_dead1', 'dlv_dead2']);
    expect((await admin('postback:redeliver', '--publisher', 'pub_trailhead', '--id', 'dlv_dead1')).body).toEqual({ redelivered: 1, ids: ['dlv_dead1'] });
    expect((await admin('postback:redeliver', '--publisher', 'pub_trailhead', '--all-dead')).body).toEqual({ redelivered: 1, ids: ['dlv_dead2'] });
    expect(await models.PostbackDelivery.countDocuments({ status: 'pending' })).toBe(2);
    expect(await admin('postback:redeliver', '--publisher', 'pub_trailhead', '--id', 'dlv_ok')).toMatchObject({ code: 2 });
  });

  it('postback:backfill takes what the retired outbox still holds out of it and gives older deliveries their expiry, safe to repeat', async () => {
    // A day ago: the expiries the backfill gives (7 and 30 days after) lie ahead, so the TTL monitor leaves them.
    const at = new Date(Date.now() - 86_400_000);
    const conversion = await models.Conversion.findOne({ publisher_id: 'pub_trailhead', source: 'v1' }).lean();
    // As a version before the postbacks read sale events from the log left it: an unpublished event in the outbox.
    await models.Conversion.collection.updateOne({ _id: conversion!._id as never }, { $set: { 'events.0.published_at': null, outbox_since: at } });
    const base = { publisher_id: 'pub_trailhead', event: 'sale.created', body: '{}', created_at: at, updated_at: at };
    await models.PostbackDelivery.collection.insertMany([
      { ...base, _id: 'dlv_old_ok', event_id: 'o1', status: 'succeeded', attempts: 1 },
      { ...base, _id: 'dlv_old_failed', event_id: 'o2', status: 'failed', attempts: 2 },
    ] as never);
    const r = await admin('postback:backfill');
    expect(r.body.conversions).toBeGreaterThanOrEqual(1);
    expect(r.body.deliveries).toBeGreaterThanOrEqual(2);
    expect(await models.Conversion.collection.countDocuments({ outbox_since: { $exists: true } })).toBe(0);
    expect((await models.PostbackDelivery.findById('dlv_old_ok').lean())!.expires_at).toEqual(new Date(at.getTime() + 7 * 86_400_000));
    expect((await models.PostbackDelivery.findById('dlv_old_failed').lean())!.expires_at).toEqual(new Date(at.getTime() + 30 * 86_400_000));
    expect((await admin('postback:backfill')).body).toEqual({ conversions: 0, deliveries: 0 });
  });
});
