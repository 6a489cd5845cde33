/**
 * Operators through the admin CLI as a real process: each act runs an operator use case of its
 * domain and leaves an entry in the audit log (who, which account, what changed, never a secret);
 * a support operator reads but is refused an admin act; audit:list filters and prints JSON.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorSetPublisherStatus } from '@cw/account';
import { ApiError } from '@cw/errors';
import { authorize } from '@cw/auth';
import { auditLog } from '@cw/audit';
import { connectDatabase, type Database } from '@cw/db';
import { openPlatformData, type PlatformData } from '@cw/runtime';
import { loadConfig } from '@cw/config';
import { createTestDatabase, type TestDatabase } from '@cw-tools/testing';
import { runCli } from '../src/cli';

const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
let tdb: TestDatabase;
let db: Database;
let data: PlatformData;

/** One CLI run in its own process: exit code, standard output and error. */
async function admin(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'tools/admin-cli/src/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: tdb.uri, LOG_LEVEL: 'silent', OPERATOR_TOKEN: '', OPERATOR_EMAIL: 'ops@network.test', ...env },
      timeout: 60_000,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}
const json = async (args: string[], env: Record<string, string> = {}) => {
  const r = await admin([...args, '--json'], env);
  return { code: r.code, body: JSON.parse(r.code === 0 ? r.out : r.err) };
};

/** The same CLI in this process (quicker, for the filters of one command). */
const inProcessRaw = async (args: string[]) => {
  const r = await runCli(args, { MONGODB_URI: tdb.uri, OPERATOR_EMAIL: 'ops@network.test' }, ROOT);
  return { code: r.code, out: r.out, err: r.out };
};
const inProcess = async (args: string[]) => {
  const r = await inProcessRaw([...args, '--json']);
  return { code: r.code, body: JSON.parse(r.out) };
};

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = await connectDatabase(tdb.uri);
  ({ data } = openPlatformData(db.connection));
  await data.auth.createPublishers([{ _id: 'pub_waiting', name: 'Waiting Blog', status: 'pending' }]);
});
afterAll(async () => {
  await db?.close();
  await tdb?.stop();
});

describe('operators and the audit log, through the CLI as a process', () => {
  let keySecret = '';
  let supportToken = '';

  it('records each act of the local operator (named by OPERATOR_EMAIL) in the audit log, without secrets', { timeout: 180_000 }, async () => {
    expect((await json(['publisher:create', '--id', 'pub_ops', '--name', 'Ops Blog'])).code).toBe(0);
    const key = await json(['key:issue', '--publisher', 'pub_ops', '--kind', 'live']);
    keySecret = key.body.secret;
    expect((await json(['credential:revoke', '--id', key.body.id])).body).toMatchObject({ status: 'revoked' });
    expect((await json(['publisher:approve', '--publisher', 'pub_waiting'])).body).toMatchObject({ status: 'active' });
    expect((await json(['publisher:set-comparison-site', '--publisher', 'pub_ops'])).body).toMatchObject({ comparison_site: true });
    expect((await json(['postback:reseal'])).code).toBe(0);
    expect((await json(['postback:backfill'])).code).toBe(0);
    expect((await json(['events:prune', '--older-than-days', '3650'])).body).toMatchObject({ removed: 0 });

    const log = await json(['audit:list', '--actor', 'ops@network.test']);
    expect(log.code).toBe(0);
    const acts = log.body.data.map((e: { action: string }) => e.action);
    expect(acts).toEqual(
      expect.arrayContaining([
        'publisher_created',
        'credential_issued',
        'credential_revoked',
        'publisher_reviewed',
        'publisher_comparison_site_changed',
        'postback_secrets_resealed',
        'postback_deliveries_backfilled',
        'conversions_backfilled',
        'events_pruned',
      ]),
    );
    const revoked = log.body.data.find((e: { action: string }) => e.action === 'credential_revoked');
    expect(revoked).toMatchObject({
      account_id: 'pub_ops',
      actor: { email: 'ops@network.test', operator_role: 'admin' },
      detail: { credential_id: key.body.id, type: 'api_key' },
    });
    expect(revoked.request_id).toMatch(/^cli_[0-9a-f]{16}$/);
    expect(JSON.stringify(log.body)).not.toContain(keySecret);
  });

  it('without OPERATOR_EMAIL the local operator is local-operator@<hostname>', { timeout: 60_000 }, async () => {
    expect((await json(['publisher:set-status', '--publisher', 'pub_ops', '--status', 'active'], { OPERATOR_EMAIL: '' })).code).toBe(0);
    const log = await json(['audit:list', '--action', 'publisher_status_changed']);
    expect(log.body.data[0].actor.email).toMatch(/^local-operator@/);
  });

  it('issues operator tokens stored hashed; a support operator reads but is refused an admin act (exit 3, a clear message)', { timeout: 120_000 }, async () => {
    const issued = await json(['operator:issue', '--email', 'support@network.test', '--role', 'support']);
    expect(issued.body).toMatchObject({ email: 'support@network.test', role: 'support' });
    supportToken = issued.body.secret;
    expect(supportToken).toMatch(/^opr_/);
    expect(JSON.stringify(await db.connection.collection('credentials').findOne({ type: 'operator_token' }))).not.toContain(supportToken);

    const env = { OPERATOR_TOKEN: supportToken };
    expect((await json(['publisher:list', '--status', 'active'], env)).code).toBe(0);
    expect((await json(['audit:list', '--account', 'pub_ops'], env)).code).toBe(0);
    const refused = await admin(['publisher:set-status', '--publisher', 'pub_ops', '--status', 'inactive'], env);
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/not allowed: .*support.*needs admin/);
    expect((await data.auth.publisherById('pub_ops'))?.status).toBe('active');

    const bad = await admin(['publisher:list'], { OPERATOR_TOKEN: 'opr_notatokenatallnotatokenatall' });
    expect(bad.code).toBe(3);
    expect(bad.err).toContain('OPERATOR_TOKEN is not an active operator token');
  });

  it('audit:list filters by account, actor, action and time, and prints JSON or lines (the last through the process)', { timeout: 60_000 }, async () => {
    const byAccount = await inProcess(['audit:list', '--account', 'pub_waiting']);
    expect(byAccount.body.data.map((e: { action: string }) => e.action)).toEqual(['publisher_reviewed']);
    const byAction = await inProcess(['audit:list', '--action', 'operator_token_issued']);
    expect(byAction.body.data).toHaveLength(1);
    expect(byAction.body.data[0].detail).toMatchObject({ email: 'support@network.test', role: 'support' });
    expect((await inProcess(['audit:list', '--since', '2999-01-01'])).body.data).toEqual([]);
    expect((await inProcess(['audit:list', '--limit', '2'])).body).toMatchObject({ has_more: true });
    expect((await inProcessRaw(['audit:list', '--action', 'no_such_act'])).code).toBe(2);
    expect((await inProcessRaw(['audit:list', '--since', 'yesterday'])).code).toBe(2);
    const human = await admin(['audit:list', '--account', 'pub_waiting']);
    expect(human.code).toBe(0);
    expect(human.out).toContain('publisher_reviewed');
  });
});

describe('the operator policy', () => {
  const config = loadConfig({}, { port: 0 });
  it('refuses a support operator an admin act with 403 role_not_allowed, and any publisher credential an operator use case', async () => {
    const deps = { config, data };
    const support = { type: 'operator' as const, email: 's@network.test', role: 'support' as const };
    await expect(auditLog(deps, support, {})).resolves.toMatchObject({ data: expect.any(Array) });
    const refused = await operatorSetPublisherStatus(deps, support, { publisher: 'pub_ops', status: 'inactive' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, code: 'role_not_allowed' });
    const publisher = { publisher: (await data.auth.publisherById('pub_ops'))!, credentialId: 'x', prefix: 'live_abc', type: 'api_key' as const };
    expect(() => authorize(publisher, operatorSetPublisherStatus.policy)).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));
  });
});
