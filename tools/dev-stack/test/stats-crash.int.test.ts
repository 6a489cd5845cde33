/**
 * The stats read model survives kill -9 of the processes that write it: a worker killed while it
 * counts conversion changes, and a tracker killed while it writes click batches. After another
 * worker's pass (and the click batches' lease), every count equals aggregating the raw rows: a
 * rebuild from them finds no cell to change, and the clicks counted are the clicks stored.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFacts, rebuildStats, recoverClickBatches } from '@cw/stats';
import { saleEvent } from '@cw/conversions';
import { ensureLinks } from '@cw/links';
import { createTestDeps, spawnService, type TestDeps } from '@cw-tools/testing';

const WORKER_MAIN = fileURLToPath(new URL('../../../apps/postback-worker/src/main.ts', import.meta.url));
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, durable: true, serverSelectionTimeoutMS: 10_000 });
});
afterAll(async () => deps?.close());

function startWorker(): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    env: { ...process.env, NODE_ENV: 'test', MONGODB_URI: deps.tdb.uri, PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function until<T>(probe: () => Promise<T | undefined | false>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(50);
  }
}

describe('the stats read model under kill -9', () => {
  it('a worker killed mid-count: the next worker finishes, nothing lost, nothing twice', { timeout: 180_000 }, async () => {
    const pub = deps.demo!.publishers[0].account_id;
    // New conversions, never counted: not the state the template is counted in (the seed's writes counted it).
    const { stats_key: _counted, ...template } = (await deps.models.Conversion.findOne({ publisher_id: pub, source: 'v1' }).lean())!;
    const N = 3000;
    const statuses = ['pending', 'approved', 'declined'] as const;
    await deps.models.Conversion.insertMany(
      Array.from({ length: N }, (_, i) => {
        const at = new Date(Date.now() - (i % 120) * 86_400_000 - i * 1000);
        return {
          ...template,
          _id: `cnv_crash_${i}`,
          subid: `s${i % 40}`,
          status: statuses[i % 3],
          paid: false,
          commission: Types.Decimal128.fromString(`${1 + (i % 97)}.${String(i % 100).padStart(2, '0')}`),
          currency: i % 5 ? 'EUR' : 'JPY',
          occurred_at: at,
          created_at: at,
          updated_at: at,
          // As the lifecycle writes a sale: its event, flagged for the log (which the stats read).
          events: [{ ...saleEvent('sale.created', at), published_at: at }],
          log_pending: true,
        };
      }),
    );
    // Not counted yet: no state the read model counts them in.
    const pending = () => deps.models.Conversion.countDocuments({ _id: /^cnv_crash_/, stats_key: { $exists: false } });
    const before = await pending();
    const a = startWorker();
    // Killed once it has counted part of the changes (it is then inside one of its steps or between two).
    await until(async () => (await pending()) < before - 300, 120_000);
    a.kill('SIGKILL');
    await once(a, 'exit');
    const left = await pending();
    expect(left).toBeGreaterThan(0);
    const b = startWorker();
    try {
      // The killed worker's account lease ends (10 s), then the next worker recovers its open step and counts the rest.
      await until(async () => (await pending()) === 0 && (await deps.models.StatTxn.countDocuments({ kind: 'conversions' })) === 0, 120_000);
    } finally {
      b.kill('SIGKILL');
      await once(b, 'exit');
    }
    expect((await rebuildStats(deps, { publisherId: pub })).cells_changed).toBe(0);
  });

  it('a tracker killed while it writes click batches: every stored click is counted once', { timeout: 120_000 }, async () => {
    const pub = deps.demo!.publishers[1].account_id;
    const [{ code }] = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      [{ publisherId: pub, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'crash' }],
      { source: 'api', listed: true },
    );
    // Batches written every 20 ms, so the kill lands among them.
    const { child, base } = await spawnService('tracker', deps.tdb.uri, { CLICK_FLUSH_INTERVAL_MS: '20', TRUST_PROXY_HOPS: '1' });
    const exited = once(child, 'exit');
    let answered = 0;
    let stop = false;
    const reader = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await fetch(`${base}/c/${code}`, { redirect: 'manual', headers: { 'User-Agent': BROWSER, 'X-Forwarded-For': `198.51.${n}.${i % 250}` } });
          if (res.status === 302) answered++;
          await res.arrayBuffer();
        } catch {
          return;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, n) => reader(n)));
    await until(async () => (await deps.data.links.storedClicks({ linkId: code })).length > 300 && answered > 400, 60_000);
    child.kill('SIGKILL');
    await exited;
    stop = true;
    await load;
    // The dead tracker's open batch is finished once its lease is over (here: an hour from now).
    await recoverClickBatches(deps, new Date(Date.now() + 3_600_000));
    const stored = (await deps.data.links.storedClicks({ linkId: code })).filter((c) => !c.is_bot).length;
    expect(stored).toBeGreaterThan(300);
    const facts = await readFacts(deps, { publisherId: pub, subid: 'crash', bySubid: true });
    expect(facts.reduce((n, f) => n + (f.clicks ?? 0), 0)).toBe(stored);
    expect((await rebuildStats(deps, { publisherId: pub })).cells_changed).toBe(0);
  });
});
