/**
 * operator:grant and operator:revoke-role through the admin CLI as a real process: a person who
 * signs in to the portal gets an operator role (support or admin) and loses it; each change is in
 * the audit log naming the acting operator, the person and the role; mistakes exit 2 with a clear
 * message; a support operator is refused (exit 3) and changes nothing.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@cw/config';
import { connectDatabase, type Database } from '@cw/db';
import { createMailer } from '@cw/mail';
import { createMemoryRateLimiter } from '@cw/ratelimit';
import { createPerson, resolveSession, sessionOperator, sessionView, signIn } from '@cw/people';
import { openPlatformData, type PlatformData } from '@cw/runtime';
import { createTestDatabase, type TestDatabase } from '@cw-tools/testing';

const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
let tdb: TestDatabase;
let db: Database;
let data: PlatformData;
const PERSON = 'Grace.Ops@Network.test';

async function admin(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'tools/admin-cli/src/main.ts', ...args, '--json'], {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: tdb.uri, LOG_LEVEL: 'silent', OPERATOR_TOKEN: '', OPERATOR_EMAIL: 'root@network.test', ...env },
      timeout: 60_000,
    });
    return { code: 0, body: JSON.parse(r.stdout) as Record<string, unknown>, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, body: null, err: `${x.stderr}${x.stdout}` };
  }
}

const roleOf = async () => (await db.connection.collection('users').findOne({ email: PERSON.toLowerCase() }))?.operator_role ?? null;

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = await connectDatabase(tdb.uri);
  ({ data } = openPlatformData(db.connection));
  await createPerson({ data }, { email: PERSON, password: 'a long enough passphrase' }, []);
});
afterAll(async () => {
  await db?.close();
  await tdb?.stop();
});

describe('operator:grant and operator:revoke-role, through the CLI as a process', () => {
  it('grants a role, changes it and takes it away, each audited with the operator, the person and the role', { timeout: 180_000 }, async () => {
    const granted = await admin(['operator:grant', '--email', PERSON, '--role', 'support']);
    expect(granted.code, granted.err).toBe(0);
    expect(granted.body).toMatchObject({ email: PERSON.toLowerCase(), operator_role: 'support', previous: null });
    expect(await roleOf()).toBe('support');

    expect((await admin(['operator:grant', '--email', PERSON, '--role', 'admin'])).body).toMatchObject({ operator_role: 'admin', previous: 'support' });
    expect(await roleOf()).toBe('admin');

    const revoked = await admin(['operator:revoke-role', '--email', PERSON]);
    expect(revoked.body).toMatchObject({ operator_role: null, previous: 'admin' });
    expect(await roleOf()).toBeNull();
    // Again: nothing to take away, nothing recorded.
    expect((await admin(['operator:revoke-role', '--email', PERSON])).body).toMatchObject({ operator_role: null, previous: null });

    const log = await admin(['audit:list', '--actor', 'root@network.test']);
    const entries = (log.body as { data: Array<{ action: string; actor: unknown; detail: Record<string, unknown>; request_id: string }> }).data;
    expect(entries.map((e) => e.action)).toEqual(['operator_role_revoked', 'operator_role_granted', 'operator_role_granted']);
    expect(entries[0]).toMatchObject({ actor: { email: 'root@network.test', operator_role: 'admin' }, detail: { email: PERSON.toLowerCase(), role: 'admin' } });
    expect(entries[1]).toMatchObject({ detail: { email: PERSON.toLowerCase(), role: 'admin', previous: 'support' } });
    expect(entries[2]).toMatchObject({ detail: { email: PERSON.toLowerCase(), role: 'support', previous: null } });
    for (const e of entries) expect(e.request_id).toMatch(/^cli_/);
  });

  it('says what is wrong with an unknown person or role (exit 2), changing nothing', { timeout: 120_000 }, async () => {
    const nobody = await admin(['operator:grant', '--email', 'nobody@network.test', '--role', 'admin']);
    expect(nobody.code).toBe(2);
    expect(nobody.err).toContain('No one signs in to the portal as nobody@network.test');
    const badRole = await admin(['operator:grant', '--email', PERSON, '--role', 'root']);
    expect(badRole.code).toBe(2);
    expect(badRole.err).toContain('--role must be support or admin');
    const missing = await admin(['operator:grant', '--role', 'admin']);
    expect(missing.code).toBe(2);
    expect(await roleOf()).toBeNull();
  });

  it('refuses a support operator (exit 3): granting is an admin act', { timeout: 120_000 }, async () => {
    const token = await admin(['operator:issue', '--email', 'helpdesk@network.test', '--role', 'support']);
    const refused = await admin(['operator:grant', '--email', PERSON, '--role', 'admin'], { OPERATOR_TOKEN: String(token.body?.secret) });
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/not allowed: .*support.*needs admin/);
    expect(await roleOf()).toBeNull();
  });

  it("makes the person's portal session an operator's (the session's view and principal say so) until the role is taken away", async () => {
    const config = loadConfig({}, { port: 0 });
    // Messages built and dropped (neither SMTP nor a folder): the person's address is confirmed already.
    const deps = { config, data, mailer: createMailer({ from: 'portal@network.test' }), limiter: createMemoryRateLimiter() };
    // A session of the person, as the portal's sign-in opens one.
    const { session: token } = await signIn(deps, { email: PERSON, password: 'a long enough passphrase' }, {});
    const ctx = async () => (await resolveSession(deps, token))!;
    const c0 = await ctx();
    expect((await sessionView(deps, await ctx())).operator).toBeNull();
    expect(() => sessionOperator(c0, {})).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));

    expect((await admin(['operator:grant', '--email', PERSON, '--role', 'support'])).code).toBe(0);
    const c = await ctx();
    expect((await sessionView(deps, c)).operator).toEqual({ role: 'support' });
    expect(sessionOperator(c, { requestId: 'req_1', addressHash: 'h' })).toEqual({
      type: 'operator',
      email: PERSON.toLowerCase(),
      role: 'support',
      requestId: 'req_1',
      addressHash: 'h',
    });
    expect((await admin(['operator:revoke-role', '--email', PERSON])).code).toBe(0);
    const after = await ctx();
    expect(() => sessionOperator(after, {})).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));
    expect((await sessionView(deps, await ctx())).operator).toBeNull();
  }, 120_000);
});
