/**
 * An existing database whose stats cells predate the roll-ups (no `stats_rollups`, no backfill
 * listing) gets its roll-ups built by the worker in the background, with no operator step: its
 * backfill loop lists the accounts and builds every account's day and month documents; the reports
 * by sub-ID then answer from them what they answered from the cells.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPendingChanges, type Fact, readFacts, rollupBackfillState, zoneCalendar } from '@cw/stats';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';

const WORKER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, durable: true, serverSelectionTimeoutMS: 10_000 });
});
afterAll(async () => deps?.close());

const sorted = (facts: Fact[]) => facts.map((f) => JSON.stringify(f)).sort();

describe('stats roll-ups of an existing database', () => {
  it('are built by the worker in the background; reports by sub-ID then read them and answer as the cells do', { timeout: 150_000 }, async () => {
    const pub = deps.demo!.publishers[0].account_id;
    await countPendingChanges(deps);
    const db = deps.models.Stat.db;
    await db.collection('stats_rollups').deleteMany({});
    await db.collection('stats_rollup_backfill').deleteMany({});
    const calendar = zoneCalendar('Asia/Kathmandu');
    const today = new Date().toISOString().slice(0, 10);
    const from = calendar.dayStart(new Date(Date.parse(`${today}T00:00:00Z`) - 120 * 86_400_000).toISOString().slice(0, 10));
    const to = calendar.dayStart(today);
    const query = { publisherId: pub, from, to, bySubid: true };
    const cells = sorted(await readFacts(deps, { ...query, cells: true }));
    expect(cells.length).toBeGreaterThan(3);

    const worker = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
      env: { ...process.env, NODE_ENV: 'test', MONGODB_URI: deps.tdb.uri, PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: '', POSTBACK_ALLOW_INSECURE: 'true' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      const end = Date.now() + 120_000;
      for (;;) {
        const state = await rollupBackfillState(deps);
        if (state.seeded && state.accounts > 0 && state.left === 0) break;
        if (Date.now() > end) throw new Error(`the worker did not backfill the roll-ups within 120 s: ${JSON.stringify(state)}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    // Every account with cells is listed and done; this one's months all have built documents.
    const accounts = (await deps.models.Stat.distinct('publisher_id', { v: 'a', g: 'm' })) as string[];
    expect((await rollupBackfillState(deps)).accounts).toBe(accounts.length);
    const months = (await deps.models.Stat.distinct('t', { publisher_id: pub, v: 's', g: 'm' })).length;
    const built = await db.collection('stats_rollups').countDocuments({ publisher_id: pub, v: 's', g: 'm', ok: true });
    expect(months).toBeGreaterThan(0);
    expect(built).toBe(months);
    expect(await db.collection('stats_rollups').countDocuments({ publisher_id: pub, v: 's', g: 'm', ok: { $ne: true } })).toBe(0);
    expect(sorted(await readFacts(deps, query))).toEqual(cells);
  });
});
