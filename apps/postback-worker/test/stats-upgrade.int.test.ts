/**
 * A database whose stats cells were written by an older layout (month cells with their total only,
 * no per-day nodes, no `fv`) is brought to the current one by the worker when it starts: every
 * report then answers what it answered on cells written by the current code.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPendingChanges, type Fact, readFacts, zoneCalendar } from '@cw/stats';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';

const WORKER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, durable: true, serverSelectionTimeoutMS: 10_000 });
});
afterAll(async () => deps?.close());

const sorted = (facts: Fact[]) => facts.map((f) => JSON.stringify(f)).sort();

describe('stats cells of an older layout', () => {
  it('are rebuilt by the worker at start; reports then answer as on current cells', { timeout: 120_000 }, async () => {
    const pub = deps.demo!.publishers[0].account_id;
    await countPendingChanges(deps);
    // Weeks of a zone 5:30 off UTC, over the whole history: edges inside months and days.
    const query = { publisherId: pub, calendar: zoneCalendar('Asia/Kolkata'), bucket: 'week' as const, bySubid: true };
    const current = sorted(await readFacts(deps, query));
    expect(current.length).toBeGreaterThan(10);

    // The older layout: month cells held their total only.
    const unset: Record<string, ''> = { fv: '' };
    for (let n = 1; n <= 31; n++) unset[`c.d${n}`] = unset[`s.d${n}`] = '';
    await deps.models.Stat.collection.updateMany({ g: 'm' }, { $unset: unset });
    expect(sorted(await readFacts(deps, query))).not.toEqual(current);

    const worker = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
      env: { ...process.env, NODE_ENV: 'test', MONGODB_URI: deps.tdb.uri, PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: '' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      const end = Date.now() + 90_000;
      while (await deps.models.Stat.exists({ g: 'm', fv: { $exists: false } })) {
        if (Date.now() > end) throw new Error('the worker did not upgrade the cells within 90 s');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    expect(sorted(await readFacts(deps, query))).toEqual(current);
  });
});
