/**
 * Coupon code review through the operator CLI: `code:list` shows the queue, `code:approve` makes a
 * code active, `code:reject --reason` frees it; each decision is audited with the operator and a
 * decided code cannot be decided again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCredential } from '@cw/auth';
import { requestCode } from '@cw/codes';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { runCli } from '../src/cli';

let deps: TestDeps;
const dir = mkdtempSync(join(tmpdir(), 'codes-cli-'));
const OPERATOR = 'codes-reviewer@network.example';
const admin = async (...args: string[]) => {
  const r = await runCli([...args, '--json'], { MONGODB_URI: deps.tdb.uri, OPERATOR_EMAIL: OPERATOR }, dir);
  expect(r.out).not.toContain('"_id"');
  return { code: r.code, body: JSON.parse(r.out) as Record<string, unknown> & Array<Record<string, unknown>> };
};
/** publishers[1] asks for a code at program 1003 (no code rules: operator review). */
const ask = async (code: string) => {
  const principal = await verifyCredential(deps.data.auth, deps.demo!.publishers[1].keys.live, ['api_key']);
  return (await requestCode(deps, principal, { program_id: 1003, code })).code;
};

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
});
afterAll(async () => deps?.close());

describe('code commands', () => {
  it('code:list shows codes waiting for review; code:approve makes one active, audited under the operator', async () => {
    const asked = await ask('CLIREVIEW1');
    expect(asked.status).toBe('pending_review');
    const queue = await admin('code:list');
    expect(queue.code).toBe(0);
    expect(queue.body.find((c) => c.id === asked.id)).toMatchObject({ code: 'CLIREVIEW1', program_id: 1003, status: 'pending_review' });

    const approved = await admin('code:approve', '--code', asked.id);
    expect(approved).toMatchObject({ code: 0, body: { id: asked.id, status: 'active' } });
    expect((await admin('code:list', '--status', 'active', '--program', '1003')).body.map((c) => c.id)).toContain(asked.id);
    expect((await admin('code:list')).body.map((c) => c.id)).not.toContain(asked.id);
    const audit = await deps.models.SecurityEvent.findOne({ type: 'code_reviewed', 'detail.code_id': asked.id }).lean();
    expect(audit).toMatchObject({ account_id: deps.demo!.publishers[1].account_id, detail: { decision: 'approve' } });
    expect(JSON.stringify(audit)).toContain(OPERATOR);

    const again = await admin('code:reject', '--code', asked.id, '--reason', 'late');
    expect(again.code).not.toBe(0);
    expect(JSON.stringify(again.body)).toContain('not waiting for review');
  });

  it('code:reject records the reason and frees the code to be asked for again', async () => {
    const asked = await ask('CLIREJECT1');
    const rejected = await admin('code:reject', '--code', asked.id, '--reason', 'Brand name in the code');
    expect(rejected).toMatchObject({ code: 0, body: { id: asked.id, status: 'rejected' } });
    const audit = await deps.models.SecurityEvent.findOne({ type: 'code_reviewed', 'detail.code_id': asked.id }).lean();
    expect(audit?.detail).toMatchObject({ decision: 'reject', reason: 'Brand name in the code' });
    expect((await ask('CLIREJECT1')).status).toBe('pending_review');
  });

  it('refuses bad input with a usage error', async () => {
    expect((await admin('code:reject', '--code', 'cod_nothere')).code).not.toBe(0);
    expect((await admin('code:approve', '--code', 'cod_nothere')).code).not.toBe(0);
    expect((await admin('code:list', '--status', 'lost')).body.error).toContain('--status must be');
  });
});
