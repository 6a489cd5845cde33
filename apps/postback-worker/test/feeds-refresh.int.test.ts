/**
 * The worker's feeds:refresh job: prepared feed files are written for every market that has none,
 * and rewritten after a catalog import marks the market changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalogRows } from '@cw/catalog';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createWorker, type Worker } from '../src/worker';

let deps: TestDeps;
let worker: Worker;

async function until<T>(probe: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 50 });
  worker = createWorker({
    db: deps.db.connection.db!,
    logger: deps.logger,
    config: deps.config,
    data: deps.data,
    processEveryMs: 50,
    feedsRefreshMs: 100,
  });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await deps?.close();
});

describe('feeds:refresh', () => {
  it("writes every market's files, then rewrites a market after a catalog import", async () => {
    const markets = (await deps.models.Program.distinct('countries', { status: 'active' })) as string[];
    const states = await until(async () => {
      const s = await deps.models.MarketState.find({ generated_at: { $ne: null } }).lean();
      return s.length === markets.length && s;
    });
    expect(states.map((s) => s._id).sort()).toEqual([...markets].sort());
    const files = await deps.db.connection.db!.collection('feedfiles.files').countDocuments({ 'metadata.country': 'DE' });
    expect(files).toBeGreaterThan(0);
    const before = states.find((s) => s._id === 'DE')!.generated_at!;

    const r = await importCatalogRows(
      deps,
      [
        {
          gtin: '4006381333931',
          title: 'Imported shoe',
          price: '59.90 EUR',
          availability: 'in stock',
          link: 'https://www.nordlicht-sports.example/p/imported',
        },
      ],
      { programId: 1001, country: 'DE' },
    );
    expect(r.imported).toBe(1);
    const after = await until(async () => {
      const s = await deps.models.MarketState.findById('DE').lean();
      return s?.generated_at && s.generated_at > before && s.generated_at >= s.catalog_changed_at! && s;
    });
    expect(after!.generated_at!.getTime()).toBeGreaterThan(before.getTime());
    // Only the newest file of each (market, program) is kept.
    const names = await deps.db.connection.db!.collection('feedfiles.files').distinct('filename', { 'metadata.country': 'DE' });
    expect(await deps.db.connection.db!.collection('feedfiles.files').countDocuments({ 'metadata.country': 'DE' })).toBe(names.length);
  });
});
