/**
 * Payout runs through the operator CLI against a real database: fx:import, payout-run:create by one
 * admin, approve refused to its creator (exit 1) and done by another, export writing the rails'
 * files (the SEPA file valid against the EPC schema), settle --sandbox, and `ledger:verify`. Then
 * kill -9: a CLI process approving (and one settling) a run of 300 payouts is killed mid-way; the
 * ledger still balances, running the command again makes the run whole, and nothing is paid twice.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryPages, validateXML } from 'xmllint-wasm';
import { book } from '@cw/ledger';
import { setPayoutProfile } from '@cw/payouts';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { runCli } from '../src/cli';

let deps: TestDeps;
const dir = mkdtempSync(join(tmpdir(), 'payouts-cli-'));
const root = resolve(import.meta.dirname, '../../..');
const as =
  (email: string) =>
  async (...args: string[]) => {
    const r = await runCli([...args, '--json'], { MONGODB_URI: deps.tdb.uri, OPERATOR_EMAIL: email }, dir);
    return { code: r.code, body: JSON.parse(r.out) as Record<string, unknown> & { error?: string } };
  };
const alice = as('alice@network.example');
const bob = as('bob@network.example');

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { PAYOUT_METHOD_HOLD_HOURS: '0' } });
}, 60_000);
afterAll(async () => deps?.close());

describe('payout runs from the CLI', () => {
  it('imports rates, creates a run, refuses its creator the approval, exports valid files, settles, and verifies the ledger', async () => {
    const fx = await alice('fx:import', join(root, 'tools/demo-data/fixtures/eurofxref-daily.xml'));
    expect(fx.code).toBe(0);
    expect(fx.body).toMatchObject({ days: 1 });
    const created = await alice('payout-run:create');
    expect(created.code).toBe(0);
    const runId = created.body.id as string;
    expect(created.body).toMatchObject({ status: 'draft', totals: [expect.objectContaining({ currency: 'EUR', rail: 'sepa', count: 1 })] });
    const refused = await alice('payout-run:approve', '--run', runId);
    expect(refused.code).toBe(1);
    expect(refused.body.error).toContain('four eyes');
    expect((await bob('payout-run:approve', '--run', runId)).body).toMatchObject({ status: 'approved', approved_by: 'bob@network.example' });
    const out = join(dir, 'files');
    const exported = await bob('payout-run:export', '--run', runId, '--out', out);
    expect(exported.code).toBe(0);
    const files = readdirSync(out);
    expect(files).toEqual([`${runId}.sepa.xml`]);
    const xml = readFileSync(join(out, files[0]!), 'utf8');
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
    const schema = readFileSync(join(root, 'libs/domains/payouts/test/fixtures/pain.001.001.09-epc-sct.xsd'), 'utf8');
    const valid = await validateXML({
      xml: [{ fileName: 'run.xml', contents: xml }],
      schema: [{ fileName: 'pain.001.001.09-epc-sct.xsd', contents: schema }],
      maxMemoryPages: 256 * memoryPages.MiB,
    });
    expect(valid.errors).toEqual([]);
    const settled = await bob('payout-run:settle', '--run', runId, '--sandbox');
    expect(settled.body).toMatchObject({ paid: 1, failed: 0 });
    const verify = await runCli(['ledger:verify'], { MONGODB_URI: deps.tdb.uri }, dir);
    expect(verify.code).toBe(0);
    expect(verify.out).toMatch(/^ledger: \d+ entries, \d+ transactions, balanced$/m);
  });

  it('leaves a run untouched or whole when an approval or a settlement is killed with SIGKILL mid-way', async () => {
    const n = 300;
    for (let i = 0; i < n; i++) {
      const id = `pub_kill_${String(i).padStart(3, '0')}`;
      await deps.data.auth.createPublishers([{ _id: id, name: id, status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() }]);
      await setPayoutProfile(deps, id, { method: { type: 'paypal', email: `${id}@example.com` }, methodChangedAt: new Date(Date.now() - 4 * 86_400_000) }); // past the 72-hour hold
      await book(deps, {
        key: 'seed',
        publisher_id: id,
        type: 'commission',
        postings: [
          { account: 'publisher', currency: 'EUR', amount: '40.00' },
          { account: 'merchant_commission', currency: 'EUR', amount: '-40.00' },
        ],
      });
    }
    const runId = (await alice('payout-run:create')).body.id as string;
    const killMidway = async (command: string, done: () => Promise<number>, extra: string[] = []) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'tools/admin-cli/src/main.ts', command, '--run', runId, ...extra], {
        cwd: root,
        env: { ...process.env, MONGODB_URI: deps.tdb.uri, OPERATOR_EMAIL: 'bob@network.example' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (d: Buffer) => (output += d));
      child.stderr!.on('data', (d: Buffer) => (output += d));
      const exited = new Promise((r) => child.once('exit', r));
      for (let t = 0; t < 3000 && child.exitCode === null && (await done()) === 0; t++) await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGKILL');
      await exited;
      if (child.exitCode !== null && child.signalCode === null) console.log(`${command} exited ${child.exitCode} before it was killed: ${output}`);
      return done();
    };
    const inTransit = () => deps.models.Payout.countDocuments({ run_id: runId, status: { $in: ['in_transit', 'paid'] } });
    const partway = await killMidway('payout-run:approve', inTransit);
    expect(partway).toBeGreaterThan(0);
    expect((await runCli(['ledger:verify'], { MONGODB_URI: deps.tdb.uri }, dir)).code).toBe(0);
    expect((await bob('payout-run:approve', '--run', runId)).body).toMatchObject({ status: 'approved' });
    expect(await deps.models.Payout.countDocuments({ run_id: runId, status: 'in_transit' })).toBe(n);
    const booked = await deps.models.LedgerTxn.find({ type: 'payout', publisher_id: /^pub_kill_/ }, { payout_id: 1 }).lean();
    expect(booked).toHaveLength(n);
    expect(new Set(booked.map((t) => t.payout_id)).size).toBe(n);

    const paid = () => deps.models.Payout.countDocuments({ run_id: runId, status: 'paid' });
    await killMidway('payout-run:settle', paid, ['--sandbox']);
    expect((await runCli(['ledger:verify'], { MONGODB_URI: deps.tdb.uri }, dir)).code).toBe(0);
    expect((await bob('payout-run:settle', '--run', runId, '--sandbox')).body).toMatchObject({ run: { status: 'settled' } });
    expect(await paid()).toBe(n);
    const balances = await deps.models.LedgerBalance.find({ _id: /^pub_kill_/ }).lean();
    expect(balances.every((b) => b.balances.every((c) => String(c.amount) === '0.00'))).toBe(true);
    expect((await runCli(['ledger:verify'], { MONGODB_URI: deps.tdb.uri }, dir)).code).toBe(0);
  }, 180_000);
});
