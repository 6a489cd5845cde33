/**
 * The stats read contract (docs/decisions/0046-stats-read-contract.md) on the composition root
 * every process runs on: every read of the stats read model (the use cases behind GET /reports/,
 * /conversions/, /payment-status/, the reporting API's /summary/ and `/Apiv3/json` getStats, MCP
 * `get_report`, the portal's dashboard) sends no write and takes no lease, and answers how fresh it
 * is (`as_of`); a change is counted by its write, so a report right after it shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { paymentStatus } from '@cw/account';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { bookLedgerEntry } from '@cw/conversions';
import { accountFacts, accountOverview, accountTop, conversionReport, linkTotals, listConversions, salesSummary } from '@cw/reports';
import { countPendingChanges } from '@cw/stats';

let deps: TestDeps;
const sent: Array<{ name: string; collection: unknown }> = [];
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 0, monitorCommands: true });
  deps.db.connection.getClient().on('commandStarted', (e) => sent.push({ name: e.commandName, collection: e.command[e.commandName] }));
});
afterAll(() => deps?.close());

const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'bulkWrite']);
const today = () => new Date().toISOString().slice(0, 10);

async function account(): Promise<{ publisherId: string; principal: Principal }> {
  const publisherId = `pub_rc${Math.random().toString(36).slice(2, 10)}`;
  await deps.models.Publisher.create({ _id: publisherId, name: 'Read contract', status: 'active' });
  return { publisherId, principal: { publisher: { _id: publisherId } } as unknown as Principal };
}

/** Every read of the stats read model a surface serves, with the `as_of` each answers (undefined: it has none). */
async function readEverything(principal: Principal): Promise<Record<string, string | undefined>> {
  const range = { date_from: today(), date_to: today() };
  const report = await conversionReport(deps, principal, { group_by: 'status', ...range, timezone: 'UTC' });
  const summary = await salesSummary(deps, principal, { group_by: 'subid', ...range, timezone: 'UTC' });
  const overview = await accountOverview(deps, principal, { ...range, timezone: 'UTC' });
  const top = await accountTop(deps, principal, { ...range, timezone: 'UTC', top: 5 });
  const payment = await paymentStatus(deps, principal);
  await listConversions(deps, principal, { source: 'all', page: 1, page_size: 10 });
  await linkTotals(deps, principal, { ids: 'lnk_a,lnk_b' });
  await accountFacts(deps, principal, { bySubid: true });
  return { report: report.as_of, summary: summary.as_of, overview: overview.as_of, top: top.as_of, payment: payment.as_of };
}

describe('the stats read contract', () => {
  it('a report right after a change shows it, because the write counted it; its as_of is the time of the answer', async () => {
    const { publisherId, principal } = await account();
    const before = Date.now();
    await bookLedgerEntry(deps, { publisherId, amount: '12.50', currency: 'EUR', reason: 'bonus' });
    const report = await conversionReport(deps, principal, { group_by: 'status', date_from: today(), date_to: today(), timezone: 'UTC' });
    expect(report.totals).toMatchObject({ conversions: 1, approved: 1, commission: { EUR: '12.50' } });
    expect(Date.parse(report.as_of)).toBeGreaterThanOrEqual(before);
    // Nothing of the account is left to count.
    expect(await deps.models.Conversion.countDocuments({ publisher_id: publisherId, stats_key: { $exists: false } })).toBe(0);
  });

  it('no read writes or takes a lease: a change left to the worker stays pending, and every answer dates itself before it', async () => {
    const { publisherId, principal } = await account();
    await bookLedgerEntry(deps, { publisherId, amount: '5.00', currency: 'EUR', reason: 'counted' });
    // A change whose write left it to the worker (the stats lease was held): a network booking not counted yet.
    const changedAt = new Date(Date.now() - 30_000);
    await deps.models.Conversion.create({
      _id: `cnv_Lrc${Math.random().toString(36).slice(2, 12)}`,
      publisher_id: publisherId,
      subid: '',
      reason: 'left to the worker',
      status: 'approved',
      sale_amount: '0',
      commission: '7.00',
      currency: 'EUR',
      occurred_at: changedAt,
      source: 'ledger',
      created_at: changedAt,
      updated_at: changedAt,
    });

    const from = sent.length;
    const asOf = await readEverything(principal);
    const commands = sent.slice(from);
    expect(commands.length).toBeGreaterThan(0);
    // No write (taking a lease is one: the account's log head); the stats checkpoint there is only read.
    expect(commands.filter((c) => WRITES.has(c.name))).toEqual([]);
    expect(asOf).toEqual({
      report: changedAt.toISOString(),
      summary: changedAt.toISOString(),
      overview: changedAt.toISOString(),
      top: changedAt.toISOString(),
      payment: changedAt.toISOString(),
    });
    const report = await conversionReport(deps, principal, { group_by: 'status', date_from: today(), date_to: today(), timezone: 'UTC' });
    expect(report.totals.commission).toEqual({ EUR: '5.00' });

    // The worker's pass counts it; the answers are then current.
    const passed = Date.now();
    await countPendingChanges(deps);
    const after = await conversionReport(deps, principal, { group_by: 'status', date_from: today(), date_to: today(), timezone: 'UTC' });
    expect(after.totals.commission).toEqual({ EUR: '12.00' });
    expect(Date.parse(after.as_of)).toBeGreaterThanOrEqual(passed);
  });
});
