/**
 * Money out end to end on the test engine through the real driver: settings (sealed, masked),
 * a run created by one admin and approved by another (the creator refused), the ledger booked once
 * (approving again, or after a crash mid-way, books nothing twice), FX at the recorded ECB rate,
 * holds, the rails' files, settlement by the sandbox bank (paid, and a refused payment credited
 * back with the method flagged), settling again changing nothing, and `verifyLedger` after each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorPrincipal, Principal } from '@cw/auth';
import { balancesOf, book, verifyLedger } from '@cw/ledger';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import {
  getPayout,
  getPayoutSettings,
  listPayouts,
  operatorApprovePayoutRun,
  operatorCreatePayoutRun,
  operatorDecideHold,
  operatorExportPayoutRun,
  operatorImportFx,
  operatorPayoutRun,
  operatorSettlePayoutRun,
  openScheduledRun,
  payoutPostings,
  requestPayout,
  scheduledRunIdOf,
  updatePayoutSettings,
  type PayoutRow,
} from '@cw/payouts';

let deps: TestDeps;
const alice: OperatorPrincipal = { type: 'operator', email: 'alice@network.example', role: 'admin' };
const bob: OperatorPrincipal = { type: 'operator', email: 'bob@network.example', role: 'admin' };

beforeAll(async () => {
  deps = await createTestDeps({ env: { PAYOUT_METHOD_HOLD_HOURS: '0' } });
  await operatorImportFx(deps, alice, readFileSync(join(import.meta.dirname, '../../../tools/demo-data/fixtures/eurofxref-daily.xml'), 'utf8'));
}, 60_000);
afterAll(() => deps?.close());

async function publisher(id: string, name = id) {
  await deps.data.auth.createPublishers([{ _id: id, name, status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() }]);
  return (await deps.data.auth.publisherById(id))!;
}

/** An owner in the portal who gave the password a moment ago. */
async function owner(id: string): Promise<Principal> {
  return {
    publisher: (await deps.data.auth.publisherById(id))!,
    credentialId: 'ses_test',
    prefix: 'session',
    type: 'portal_session',
    person: { userId: `usr_${id}`, email: `owner@${id}.example`, role: 'owner', sessionId: 'ses_test', reauthenticatedUntil: new Date(Date.now() + 600_000) },
  } as Principal;
}

const credit = (publisherId: string, currency: string, amount: string, key: string) =>
  book(deps, {
    key,
    publisher_id: publisherId,
    type: 'commission',
    postings: [
      { account: 'publisher', currency, amount },
      { account: 'merchant_commission', currency, amount: `-${amount}` },
    ],
  });

const balances = async (id: string) => Object.fromEntries((await balancesOf(deps, id)).map((b) => [b.currency, b.amount]));
const verified = async () => expect((await verifyLedger(deps)).problems).toEqual([]);

describe('payout settings', () => {
  it('keeps the method sealed and shows only its type and last 4; refuses a threshold below the minimum and a bad IBAN', async () => {
    await publisher('pub_po_set');
    const p = await owner('pub_po_set');
    const view = await updatePayoutSettings(deps, p, {
      method: { type: 'iban', holder_name: 'Trail Notes GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' },
      threshold: '50.00',
    });
    expect(view).toMatchObject({ method: { type: 'iban', last4: '3000', failed: false }, currency: 'EUR', threshold: '50.00', schedule: 'monthly' });
    const stored = JSON.stringify(await deps.models.PayoutProfile.findById('pub_po_set').lean());
    expect(stored).not.toContain('0532013000');
    expect(stored).not.toContain('Trail Notes GmbH');
    await expect(updatePayoutSettings(deps, p, { threshold: '5.00' })).rejects.toMatchObject({ code: 'invalid_parameter', errors: [{ param: 'threshold' }] });
    await expect(
      updatePayoutSettings(deps, p, { method: { type: 'iban', holder_name: 'X', iban: 'DE89370400440532013001', bic: 'COBADEFFXXX' } }),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });
    const analyst = { ...p, person: { ...p.person!, role: 'analyst' } } as Principal;
    await expect(updatePayoutSettings(deps, analyst, { schedule: 'on_request' })).rejects.toMatchObject({ code: 'role_not_allowed' });
    const stale = { ...p, person: { ...p.person!, reauthenticatedUntil: new Date(Date.now() - 1) } } as Principal;
    await expect(updatePayoutSettings(deps, stale, { schedule: 'on_request' })).rejects.toMatchObject({ code: 'reauthentication_required' });
    expect(await getPayoutSettings(deps, { ...p, type: 'api_key', keyKind: 'live', person: undefined } as Principal)).toMatchObject({
      method: { last4: '3000' },
    });
  });
});

describe('a payout run', () => {
  let runId: string;
  it('lists every publisher due, converts other currencies at the recorded rate, and holds an account shared by two publishers', async () => {
    await publisher('pub_po_a');
    await publisher('pub_po_b');
    await publisher('pub_po_c');
    await publisher('pub_po_d');
    await updatePayoutSettings(deps, await owner('pub_po_a'), {
      method: { type: 'iban', holder_name: 'Alpha Reviews', iban: 'FR1420041010050500013M02606', bic: 'PSSTFRPPPAR' },
    });
    await updatePayoutSettings(deps, await owner('pub_po_b'), { method: { type: 'paypal', email: 'Payee@Beta.example' }, currency: 'USD' });
    // Two publishers, one bank account: held for review.
    await updatePayoutSettings(deps, await owner('pub_po_c'), {
      method: { type: 'iban', holder_name: 'FAIL Gamma', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' },
    });
    await updatePayoutSettings(deps, await owner('pub_po_d'), {
      method: { type: 'iban', holder_name: 'Delta', iban: 'NL91 ABNA 0417 1643 00', bic: 'ABNANL2A' },
    });
    await credit('pub_po_a', 'EUR', '120.00', 'a1');
    await credit('pub_po_a', 'GBP', '10.00', 'a2');
    await credit('pub_po_b', 'USD', '80.00', 'b1');
    await credit('pub_po_c', 'EUR', '75.50', 'c1');
    await credit('pub_po_d', 'EUR', '30.00', 'd1');
    const run = await operatorCreatePayoutRun(deps, alice);
    runId = run._id;
    const { payouts } = await operatorPayoutRun(deps, alice, { runId });
    const of = (id: string) => payouts.find((p) => p.publisher_id === id) as PayoutRow;
    expect(of('pub_po_a')).toMatchObject({ status: 'pending', currency: 'EUR', rail: 'sepa', sources: [{ currency: 'EUR' }, { currency: 'GBP' }] });
    expect(of('pub_po_a').fx).toEqual([expect.objectContaining({ from: 'GBP', to: 'EUR' })]);
    expect(of('pub_po_b')).toMatchObject({ status: 'pending', amount: expect.anything(), currency: 'USD', rail: 'paypal' });
    expect(of('pub_po_c')).toMatchObject({ status: 'held', holds: ['shared_account'] });
    expect(of('pub_po_d')).toMatchObject({ status: 'held', holds: ['shared_account'] });
    expect(run.held).toBe(2);
    await verified();
  });

  it('is approved by another admin only; approval books each payout once, also when repeated after a crash mid-way', async () => {
    await expect(operatorApprovePayoutRun(deps, alice, { runId })).rejects.toMatchObject({ code: 'forbidden' });
    // A crash after the first payout was booked, before its status moved: the run is approving.
    const first = (await deps.models.Payout.findOne({ run_id: runId, status: 'pending' }).sort({ _id: 1 }).lean()) as unknown as PayoutRow;
    await deps.models.PayoutRun.updateOne({ _id: runId }, { $set: { status: 'approving' } });
    await book(deps, {
      key: `payout:${first._id}`,
      publisher_id: first.publisher_id,
      type: 'payout',
      postings: payoutPostings(first, first.converted),
      payout_id: first._id,
    });
    const approved = await operatorApprovePayoutRun(deps, bob, { runId });
    expect(approved.status).toBe('approved');
    expect(await operatorApprovePayoutRun(deps, bob, { runId })).toMatchObject({ status: 'approved' });
    expect(await deps.models.LedgerTxn.countDocuments({ type: 'payout', payout_id: { $exists: true }, publisher_id: { $in: ['pub_po_a', 'pub_po_b'] } })).toBe(
      2,
    );
    expect(await balances('pub_po_a')).toEqual({ EUR: '0.00', GBP: '0.00' });
    expect(await balances('pub_po_b')).toEqual({ USD: '0.00' });
    expect(await balances('pub_po_c')).toEqual({ EUR: '75.50' });
    await verified();
  });

  it('exports the same files every time: a SEPA credit transfer and a PayPal batch, no account number in the CSVs', async () => {
    const files = await operatorExportPayoutRun(deps, bob, { runId });
    expect(files.map((f) => f.rail).sort()).toEqual(['paypal', 'sepa']);
    expect(files.find((f) => f.rail === 'sepa')!.content).toContain('FR1420041010050500013M02606');
    expect(files.find((f) => f.rail === 'paypal')!.content).toContain('payee@beta.example');
    expect(await operatorExportPayoutRun(deps, bob, { runId })).toEqual(files);
  });

  it('releases a held payout into the approved run (booked at once), and cancels the other', async () => {
    const held = await deps.models.Payout.find({ run_id: runId, status: 'held' }).sort({ publisher_id: 1 }).lean();
    expect((await operatorDecideHold(deps, bob, { payoutId: held[0]!._id, action: 'release' }))!.status).toBe('in_transit');
    expect((await operatorDecideHold(deps, bob, { payoutId: held[1]!._id, action: 'cancel' }))!.status).toBe('canceled');
    expect(await balances('pub_po_c')).toEqual({ EUR: '0.00' });
    expect(await balances('pub_po_d')).toEqual({ EUR: '30.00' });
    await verified();
  });

  it('settles with the bank: paid ones paid, a refused one credited back with its method flagged; settling again changes nothing', async () => {
    const settled = await operatorSettlePayoutRun(deps, bob, { runId, sandbox: true });
    expect(settled).toMatchObject({ paid: 2, failed: 1 });
    expect(settled.run.status).toBe('settled');
    const c = await deps.models.Payout.findOne({ run_id: runId, publisher_id: 'pub_po_c' }).lean();
    expect(c).toMatchObject({ status: 'failed', failure: { code: 'AC04' } });
    expect(await balances('pub_po_c')).toEqual({ EUR: '75.50' });
    expect(await getPayoutSettings(deps, await owner('pub_po_c'))).toMatchObject({ method: { failed: true } });
    expect(await operatorSettlePayoutRun(deps, bob, { runId, sandbox: true })).toMatchObject({ paid: 0, failed: 0 });
    expect(await balances('pub_po_c')).toEqual({ EUR: '75.50' });
    await verified();
    const page = await listPayouts(deps, await owner('pub_po_a'), { page: 1, page_size: 10 });
    expect(page.data).toEqual([
      expect.objectContaining({
        status: 'paid',
        currency: 'EUR',
        method: { type: 'iban', last4: '2606' },
        fx: [expect.objectContaining({ from: 'GBP', to: 'EUR' })],
      }),
    ]);
    expect(JSON.stringify(page)).not.toContain('FR1420041010050500013M02606');
    await expect(getPayout(deps, await owner('pub_po_b'), { id: page.data[0]!.id })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('requesting a payout', () => {
  it('answers no_payout_method, below_threshold, then the payout; a second request while it waits is payout_in_progress', async () => {
    await publisher('pub_po_r');
    const p = await owner('pub_po_r');
    await expect(requestPayout(deps, p)).rejects.toMatchObject({ code: 'no_payout_method' });
    await updatePayoutSettings(deps, p, { method: { type: 'paypal', email: 'r@example.com' }, schedule: 'on_request', threshold: '25.00' });
    await credit('pub_po_r', 'EUR', '10.00', 'r1');
    await expect(requestPayout(deps, p)).rejects.toMatchObject({ code: 'below_threshold' });
    await credit('pub_po_r', 'EUR', '20.00', 'r2');
    const po = await requestPayout(deps, p);
    expect(po).toMatchObject({ status: 'pending', amount: '30.00', currency: 'EUR', method: { type: 'paypal', last4: 'r•••@example.com' } });
    await expect(requestPayout(deps, p)).rejects.toMatchObject({ code: 'payout_in_progress' });
    // Monthly runs leave it to its own run.
    const monthly = await operatorCreatePayoutRun(deps, alice);
    expect((await operatorPayoutRun(deps, alice, { runId: monthly._id })).payouts.map((x) => x.publisher_id)).not.toContain('pub_po_r');
    await verified();
  });
});

describe('the scheduled run', () => {
  it('opens once a month from the 15th (UTC), whoever runs the job and however often; any admin approves it', async () => {
    await publisher('pub_po_s');
    await updatePayoutSettings(deps, await owner('pub_po_s'), { method: { type: 'paypal', email: 's@example.com' } });
    await credit('pub_po_s', 'EUR', '64.00', 's1');
    // Before the 15th nothing opens.
    expect(await openScheduledRun(deps, new Date('2031-03-14T23:59:59Z'))).toBeNull();
    expect(await deps.models.PayoutRun.countDocuments({ _id: scheduledRunIdOf('2031-03') })).toBe(0);
    // Two workers at once, then a later pass the same month: one run.
    const at = new Date('2031-03-15T00:10:00Z');
    const passes = await Promise.all([openScheduledRun(deps, at), openScheduledRun(deps, at)]);
    const runId = scheduledRunIdOf('2031-03');
    // Both may fill it (each payout's id is its own, so once); one run, one audit record.
    expect(passes.some(Boolean)).toBe(true);
    expect(passes.filter(Boolean).every((r) => r!._id === runId)).toBe(true);
    expect(await deps.models.PayoutRun.countDocuments({ _id: /^prun_m2031/ })).toBe(1);
    expect(await openScheduledRun(deps, new Date('2031-03-28T10:00:00Z'))).toBeNull();
    const { run, payouts } = await operatorPayoutRun(deps, alice, { runId });
    expect(run).toMatchObject({ kind: 'scheduled', status: 'draft', created_by: 'scheduler' });
    expect(run.opening).toBeUndefined();
    expect(payouts.filter((p) => p.publisher_id === 'pub_po_s')).toEqual([expect.objectContaining({ status: 'pending', amount: expect.anything() })]);
    expect(String(payouts.find((p) => p.publisher_id === 'pub_po_s')!.amount)).toBe('64.00');
    expect(await deps.models.SecurityEvent.countDocuments({ type: 'payout_run_created', 'detail.run_id': runId })).toBe(1);
    expect((await operatorApprovePayoutRun(deps, alice, { runId })).status).toBe('approved');
    expect(await balances('pub_po_s')).toEqual({ EUR: '0.00' });
    await verified();
  });

  it('finishes a run a crash left half-open on the next pass, and keeps it from approval until then', async () => {
    await publisher('pub_po_t');
    await updatePayoutSettings(deps, await owner('pub_po_t'), { method: { type: 'paypal', email: 't@example.com' } });
    await credit('pub_po_t', 'EUR', '51.00', 't1');
    // A pass that died after claiming April's run, before it listed anyone.
    const runId = scheduledRunIdOf('2031-04');
    await deps.models.PayoutRun.create({ _id: runId, kind: 'scheduled', status: 'draft', created_by: 'scheduler', created_at: new Date(), opening: true });
    await expect(operatorApprovePayoutRun(deps, bob, { runId })).rejects.toMatchObject({ code: 'invalid_transition' });
    const finished = await openScheduledRun(deps, new Date('2031-04-15T01:00:00Z'));
    expect(finished?._id).toBe(runId);
    expect(finished?.opening).toBeUndefined();
    const { payouts } = await operatorPayoutRun(deps, bob, { runId });
    expect(payouts.filter((p) => p.publisher_id === 'pub_po_t')).toHaveLength(1);
    expect(await openScheduledRun(deps, new Date('2031-04-15T02:00:00Z'))).toBeNull();
    expect((await operatorApprovePayoutRun(deps, bob, { runId })).status).toBe('approved');
    await verified();
  });
});

describe('a reversal racing a payout', () => {
  it('is either in the payout or netted from the next one, never lost nor taken twice', async () => {
    await publisher('pub_po_race');
    await updatePayoutSettings(deps, await owner('pub_po_race'), { method: { type: 'paypal', email: 'race@example.com' } });
    await credit('pub_po_race', 'EUR', '100.00', 'race-sale');
    const run = await operatorCreatePayoutRun(deps, alice);
    const payout = (await operatorPayoutRun(deps, alice, { runId: run._id })).payouts.find((p) => p.publisher_id === 'pub_po_race')!;
    expect(String(payout.amount)).toBe('100.00');
    // The merchant reverses 30.00 of it while another admin approves the run.
    const reversal = book(deps, {
      key: 'race-reversal',
      publisher_id: 'pub_po_race',
      type: 'reversal',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '-30.00' },
        { account: 'merchant_commission', currency: 'EUR', amount: '30.00' },
      ],
    });
    await Promise.all([operatorApprovePayoutRun(deps, bob, { runId: run._id }), reversal]);
    // The payout pays what the run listed; the reversal leaves the balance below zero.
    expect(await deps.models.Payout.findById(payout._id).lean()).toMatchObject({ status: 'in_transit' });
    expect(await balances('pub_po_race')).toEqual({ EUR: '-30.00' });
    await verified();
    // The next run nets it: 90.00 earned since, 60.00 paid.
    await credit('pub_po_race', 'EUR', '90.00', 'race-sale-2');
    const next = await operatorCreatePayoutRun(deps, alice);
    const netted = (await operatorPayoutRun(deps, alice, { runId: next._id })).payouts.find((p) => p.publisher_id === 'pub_po_race')!;
    expect(String(netted.amount)).toBe('60.00');
    await operatorApprovePayoutRun(deps, bob, { runId: next._id });
    expect(await balances('pub_po_race')).toEqual({ EUR: '0.00' });
    await verified();
  });
});
