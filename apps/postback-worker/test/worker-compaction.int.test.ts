/**
 * The worker's clicks compaction (CLICK_COMPACT_INTERVAL_MS, docs/decisions/0052-click-compaction.md):
 * a low-traffic account's one-click buckets, counted and older than an hour, are merged by the
 * worker's own loop, every click kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickIds, ensureLinks, type ClickRow } from '@cw/links';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createWorker, type Worker } from '../src/worker';

const DAY = 86_400_000;
/** A demo account with no clicks of its own. */
const PUB = 'pub_nomarkets';

let deps: TestDeps;
let worker: Worker | undefined;

async function until<T>(probe: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, env: { CLICK_COMPACT_INTERVAL_MS: '300' } });
});
afterAll(async () => {
  await worker?.stop();
  await deps?.close();
});

describe('the clicks compaction loop', () => {
  it("merges a low-traffic account's one-click buckets of past days, every click kept", { timeout: 60_000 }, async () => {
    const [{ code }] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: PUB, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/worker', subid: 'w' }],
      { source: 'api', listed: true },
    );
    const ids = new ClickIds(deps.config.keys);
    const day0 = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
    const clicks = Array.from({ length: 300 }, (_, k): ClickRow => {
      const at = new Date(day0 + 60_000 + k * 90_000);
      return {
        _id: ids.next(code, { isBot: false }, at.getTime()),
        link_id: code,
        publisher_id: PUB,
        program_id: 1001,
        campaign_id: 501,
        subid: 'w',
        created_at: at,
        user_agent: 'Mozilla/5.0',
        ip_hash: (k % 9).toString(16).padStart(32, '0'),
        referrer: '',
        is_bot: false,
      };
    });
    await deps.data.links.insertClickRows(clicks);
    expect(await deps.models.ClickBucket.countDocuments({ publisher_id: PUB })).toBe(300);

    worker = createWorker({ db: deps.db.connection.db!, logger: deps.logger, config: deps.config, data: deps.data, processEveryMs: 50 });
    await worker.start();
    // Merged beside its sources (settled by a run two minutes later).
    const merged = await until(async () => (await deps.models.ClickBucket.findOne({ publisher_id: PUB, w: 2 }).lean()) ?? undefined);
    expect(merged.n).toBe(300);
    const stored = await deps.data.links.storedClicks({ publisherId: PUB });
    expect(stored.map((c) => c._id).sort()).toEqual(clicks.map((c) => c._id).sort());
  });
});
