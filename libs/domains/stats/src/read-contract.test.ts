/**
 * The stats read contract (docs/decisions/0046-stats-read-contract.md) on a real database: a
 * conversion change is counted by its write (through the lifecycle's port), a write that finds the
 * account's stats lease held leaves its change to the holder or the worker without waiting long,
 * a read writes nothing and takes no lease, and `as_of` says up to when the account's changes are
 * counted.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, migrateIndexes, type Database } from '@cw/db';
import { changeStatus, conversionsDomain, saleEvent, type ConversionsModels } from '@cw/conversions';
import { eventsFeedDomain, withAccountLease } from '@cw/events-feed';
import { programsDomain } from '@cw/programs';
import { countAccountChanges, countPendingChanges, countWrittenChanges } from './counting';
import { statsDomain } from './data/stats.data';
import type { StatsDeps } from './deps';
import { countedAsOf } from './freshness';
import { readFacts } from './reader';
import { startTestEngine, type TestEngine } from '@cw-tools/test-engine';

let engine: TestEngine;
let db: Database;
let models: ConversionsModels;
let deps: Pick<StatsDeps, 'data'>;
/** Every command the driver sent, by name and collection. */
const sent: Array<{ name: string; collection: unknown }> = [];

beforeAll(async () => {
  engine = await startTestEngine();
  db = await connectDatabase(engine.uri, { monitorCommands: true });
  const conversions = conversionsDomain.open(db.connection);
  const stats = statsDomain.open(db.connection);
  const eventsFeed = eventsFeedDomain.open(db.connection);
  const programs = programsDomain.open(db.connection);
  models = conversions.models;
  for (const m of [conversions.models, stats.models, eventsFeed.models, programs.models]) await migrateIndexes(m);
  // The conversions, the cells, the events log and its leases; the composition root wires the same counter (libs/platform/runtime).
  deps = {
    data: { conversions: conversions.handle, stats: stats.handle, eventsFeed: eventsFeed.handle, programs: programs.handle },
  } as unknown as Pick<StatsDeps, 'data'>;
  conversions.handle.countChangesWith((publisherId) => countWrittenChanges(deps, publisherId));
  db.connection.getClient().on('commandStarted', (e) => sent.push({ name: e.commandName, collection: e.command[e.commandName] }));
});
afterAll(async () => {
  await db?.connection.dropDatabase();
  await db?.close();
  await engine?.stop();
});

const account = () => `pub_${randomBytes(6).toString('hex')}`;
/** The lifecycle's deps: the same data (it reads only the conversions here). */
const salesDeps = () => deps as unknown as Parameters<typeof changeStatus>[0];

/** A sale as the lifecycle stores it (its event flagged for the log), not counted yet. */
async function storeSale(publisherId: string, changedAt = new Date()): Promise<string> {
  const id = `cnv_${randomBytes(9).toString('base64url')}`;
  await models.Conversion.create({
    _id: id,
    publisher_id: publisherId,
    program_id: 1001,
    campaign_id: 501,
    subid: 'fb',
    status: 'pending',
    sale_amount: '100.00',
    commission: '8.00',
    currency: 'EUR',
    occurred_at: new Date(changedAt.getTime() - 60_000),
    source: 'v1',
    events: [saleEvent('sale.created', changedAt)],
    log_pending: true,
    created_at: changedAt,
    updated_at: changedAt,
  });
  return id;
}

/** Conversions per status as the stats read model counts them. */
async function counted(publisherId: string): Promise<Record<string, number>> {
  const n: Record<string, number> = { pending: 0, approved: 0, declined: 0 };
  for (const f of await readFacts(deps, { publisherId })) if (f.conversion) n[f.conversion.status]! += f.conversion.n;
  return n;
}

const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'bulkWrite', 'createIndexes']);

describe('a conversion change', () => {
  it('is counted by its write: a report read right after shows it, and nothing is left pending', async () => {
    const publisherId = account();
    const id = await storeSale(publisherId);
    await countAccountChanges(deps, publisherId);
    expect(await counted(publisherId)).toEqual({ pending: 1, approved: 0, declined: 0 });

    await changeStatus(salesDeps(), id, 'approved');
    expect(await counted(publisherId)).toEqual({ pending: 0, approved: 1, declined: 0 });
    expect((await countedAsOf(deps, publisherId, new Date(Date.now() + 60_000))).getTime()).toBeGreaterThan(Date.now());
  });

  it('finding the stats lease held, is left to the holder or the worker: the write does not wait long and the change is not lost', async () => {
    const publisherId = account();
    const id = await storeSale(publisherId);
    await countAccountChanges(deps, publisherId);
    let changedAt = 0;
    await withAccountLease(deps, publisherId, 'stats', 10_000, async () => {
      const started = Date.now();
      const changed = await changeStatus(salesDeps(), id, 'declined');
      changedAt = changed.updated_at.getTime();
      expect(Date.now() - started).toBeLessThan(2_000);
      // Not counted yet, and the answer says so.
      expect(await counted(publisherId)).toEqual({ pending: 1, approved: 0, declined: 0 });
      expect((await countedAsOf(deps, publisherId)).getTime()).toBe(changedAt);
    });
    // The worker's pass (or the holder, after it lets go) counts it.
    await countPendingChanges(deps);
    expect(await counted(publisherId)).toEqual({ pending: 0, approved: 0, declined: 1 });
    expect((await countedAsOf(deps, publisherId)).getTime()).toBeGreaterThanOrEqual(changedAt);
  });
});

describe('a read of the stats read model', () => {
  it('writes nothing and takes no lease: what is pending stays pending for the worker', async () => {
    const publisherId = account();
    await storeSale(publisherId);
    const from = sent.length;
    await countedAsOf(deps, publisherId);
    await readFacts(deps, { publisherId, bySubid: true });
    const quarter = Math.ceil(Date.now() / 900_000) * 900_000;
    await readFacts(deps, { publisherId, byProgram: true, from: quarter - 86_400_000, to: quarter });
    const commands = sent.slice(from);
    expect(commands.length).toBeGreaterThan(0);
    // No write at all (a lease is a write on the account's log head; the stats checkpoint is only read).
    expect(commands.filter((c) => WRITES.has(c.name))).toEqual([]);
    expect(await counted(publisherId)).toEqual({ pending: 0, approved: 0, declined: 0 });
    // Still waiting for the worker, and dated so.
    expect((await countedAsOf(deps, publisherId, new Date(Date.now() + 60_000))).getTime()).toBeLessThanOrEqual(Date.now());
    await countPendingChanges(deps);
    expect(await counted(publisherId)).toEqual({ pending: 1, approved: 0, declined: 0 });
  });
});

describe('as_of', () => {
  it("is now when nothing of the account is pending, else the time of its oldest pending change (another account's do not matter)", async () => {
    const publisherId = account();
    const now = new Date();
    expect(await countedAsOf(deps, publisherId, now)).toEqual(now);

    await storeSale(account(), new Date(now.getTime() - 3_600_000));
    const older = new Date(now.getTime() - 120_000);
    await storeSale(publisherId, new Date(now.getTime() - 60_000));
    await storeSale(publisherId, older);
    expect(await countedAsOf(deps, publisherId, now)).toEqual(older);

    await countAccountChanges(deps, publisherId);
    expect(await countedAsOf(deps, publisherId, now)).toEqual(now);
    expect(await counted(publisherId)).toEqual({ pending: 2, approved: 0, declined: 0 });
  });
});
