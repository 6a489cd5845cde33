/**
 * Money out at scale, the engine in its own process (as MongoDB would be):
 *   1. A payout run over P publishers (default 10,000) whose ledgers hold E entries in all (default
 *      1,000,000): payout-run:create, approve (by another admin) and export, time and this
 *      process's memory; then `ledger:verify` over the whole journal.
 *   2. `GET /balance/transactions/` (a page of 100, first and deep by cursor) and payment status
 *      for one publisher with B entries (default 1,000,000) against one with 1,000: p50/p99 of R
 *      sequential calls each (the use cases, as every surface calls them), and the engine's CPU
 *      per call. Both accounts are set up first and then asked in turn, so each call of one finds
 *      the engine as a call of the other does (its heap, the GC after the big account's bulk
 *      insert, the machine's load): measured one after the other, the big account's calls came
 *      right after a million inserts and looked 4x slower (bench/README.md, issue 62).
 * `npm run bench:payouts [-- --publishers 10000 --entries 1000000 --big 1000000 --requests 200 --part all|run|status]`
 * (`--part status` runs part 2 alone: part 1's setup takes minutes.)
 */
import { performance } from 'node:perf_hooks';
import { Decimal128 } from 'bson';
import { loadConfig } from '@cw/config';
import { listBalanceTransactions, verifyLedger } from '@cw/ledger';
import { createLogger } from '@cw/logging';
import { createHttpMetrics } from '@cw/metrics';
import { paymentStatus } from '@cw/account';
import { operatorApprovePayoutRun, operatorCreatePayoutRun, operatorExportPayoutRun, setPayoutProfile } from '@cw/payouts';
import { openServiceDeps } from '@cw/runtime';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { processCpuMicros, startEngineProcess } from './lib/engine-process';

const OPTIONS = {
  publishers: { type: 'string', default: '10000' },
  entries: { type: 'string', default: '1000000' },
  big: { type: 'string', default: '1000000' },
  requests: { type: 'string', default: '200' },
  part: { type: 'string', default: 'all' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:payouts --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const P = Number(values.publishers);
const E = Number(values.entries);
const BIG = Number(values.big);
const R = Number(values.requests);
const PART = values.part;
if (!['all', 'run', 'status'].includes(PART)) throw new Error(`--part: all, run or status, not ${PART}`);

const engine = await startEngineProcess('bench_payouts');
const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' }, { port: 0 });
const deps = await openServiceDeps(config, engine.uri, 'bench', {
  logger: createLogger({ level: 'silent' }),
  metrics: createHttpMetrics({ defaultMetrics: false }),
  indexes: 'migrate',
});
const mib = () => (process.memoryUsage().rss / 1048576).toFixed(0);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const ms = (t: number) => `${(performance.now() - t).toFixed(0)} ms`;

/**
 * `n` commission entries of 0.50 EUR for the publisher, inserted in bulk (through the driver: the
 * documents mongoose would write, without casting a million of them), and its balance (as the
 * journal would count them).
 */
async function ledgerOf(publisherId: string, n: number, base: number) {
  for (let done = 0; done < n; done += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, n - done) }, (_, i) => ({
      _id: `ltx_b${publisherId}_${done + i}`,
      publisher_id: publisherId,
      type: 'commission',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: Decimal128.fromString('0.50') },
        { account: 'merchant_commission', currency: 'EUR', amount: Decimal128.fromString('-0.50') },
      ],
      created_at: new Date(base + done + i),
    }));
    await deps.models.LedgerTxn.collection.insertMany(rows as never[], { ordered: false });
  }
  const cents = BigInt(n) * 50n;
  await deps.models.LedgerBalance.create({
    _id: publisherId,
    version: 1,
    balances: [{ currency: 'EUR', amount: `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}` }],
    entries: n,
    recent: [],
  });
}

/** 1. A payout run over P publishers, then `ledger:verify`. */
async function payoutRun() {
  let t = performance.now();
  const perPublisher = Math.max(1, Math.floor(E / P));
  const accounts = Array.from({ length: P }, (_, i) => `pub_bench_${String(i).padStart(6, '0')}`);
  for (let i = 0; i < P; i += 1000)
    await deps.data.auth.createPublishers(
      accounts.slice(i, i + 1000).map((id) => ({ _id: id, name: id, status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() })),
    );
  const old = new Date(Date.now() - 30 * 86_400_000);
  for (const [i, id] of accounts.entries()) {
    await setPayoutProfile(deps, id, {
      method: i % 2 ? { type: 'paypal', email: `${id}@example.com` } : { type: 'iban', holder_name: id, iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
      methodChangedAt: old,
    });
    await ledgerOf(id, perPublisher, 1_700_000_000_000);
  }
  // Half the bank payouts share one IBAN (as the fixture does): they are held; the PayPal ones pay.
  console.log(`setup: ${P} publishers, ${P * perPublisher} entries in ${ms(t)}, rss ${mib()} MiB`);

  const alice = { type: 'operator', email: 'alice@network.example', role: 'admin' } as const;
  const bob = { type: 'operator', email: 'bob@network.example', role: 'admin' } as const;
  const rss0 = process.memoryUsage().rss;
  t = performance.now();
  const run = await operatorCreatePayoutRun(deps, alice);
  console.log(
    `payout-run:create: ${ms(t)}; totals ${JSON.stringify(run.totals)}, held ${run.held}; rss +${((process.memoryUsage().rss - rss0) / 1048576).toFixed(0)} MiB`,
  );
  t = performance.now();
  await operatorApprovePayoutRun(deps, bob, { runId: run._id });
  console.log(`payout-run:approve: ${ms(t)}; rss +${((process.memoryUsage().rss - rss0) / 1048576).toFixed(0)} MiB`);
  t = performance.now();
  const files = await operatorExportPayoutRun(deps, bob, { runId: run._id });
  console.log(
    `payout-run:export: ${ms(t)}; ${files.map((f) => `${f.name} ${f.content.length} B`).join(', ')}; rss +${((process.memoryUsage().rss - rss0) / 1048576).toFixed(0)} MiB`,
  );
  t = performance.now();
  const v = await verifyLedger(deps);
  console.log(`ledger:verify: ${ms(t)}; ${v.entries} entries, ${v.transactions} transactions, ${v.balanced ? 'balanced' : 'NOT balanced'}`);
}

/**
 * 2. One big account against a small one, both set up first and then asked in turn (the order
 * alternating), each call timed and the engine's CPU during it added to its account's.
 */
async function oneAccount() {
  const accounts = [
    { id: 'pub_bench_small', n: 1000 },
    { id: 'pub_bench_big', n: BIG },
  ].map((a) => ({
    ...a,
    principal: undefined as never,
    cursor: null as string | null,
    first: [] as number[],
    deep: [] as number[],
    status: [] as number[],
    cpu: [0, 0, 0],
  }));
  for (const a of accounts) {
    await deps.data.auth.createPublishers([{ _id: a.id, name: a.id, status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() }]);
    const t = performance.now();
    await ledgerOf(a.id, a.n, 1_600_000_000_000);
    console.log(`${a.id}: ${a.n} entries in ${ms(t)}`);
    a.principal = { publisher: (await deps.data.auth.publisherById(a.id))!, credentialId: 'bench', prefix: 'bench', type: 'api_key', keyKind: 'live' } as never;
  }
  /** Times `call` into `into` and adds the engine's CPU (µs) during it to `cpu[slot]`. */
  const timed = async <T>(a: (typeof accounts)[number], slot: number, into: number[], call: () => Promise<T>): Promise<T> => {
    const c = processCpuMicros(engine.pid);
    const s = performance.now();
    const out = await call();
    into.push(performance.now() - s);
    a.cpu[slot]! += processCpuMicros(engine.pid) - c;
    return out;
  };
  for (let i = 0; i < R; i++) {
    for (const a of i % 2 ? [...accounts].reverse() : accounts) {
      const page = await timed(a, 0, a.first, () => listBalanceTransactions(deps, a.principal, { page: 1, page_size: 100 }));
      const next = await timed(a, 1, a.deep, () =>
        listBalanceTransactions(deps, a.principal, { page: 1, page_size: 100, ...(a.cursor ? { cursor: a.cursor } : {}) }),
      );
      a.cursor = next.next_cursor ?? page.next_cursor;
      await timed(a, 2, a.status, () => paymentStatus(deps, a.principal));
    }
  }
  const f = (xs: number[], cpu: number) =>
    `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms (engine CPU ${(cpu / xs.length / 1000).toFixed(2)} ms a call)`;
  for (const a of accounts)
    console.log(
      `${a.n} entries: /balance/transactions/ first page ${f(a.first, a.cpu[0]!)}; next pages by cursor ${f(a.deep, a.cpu[1]!)}; /payment-status/ ${f(a.status, a.cpu[2]!)}`,
    );
}

if (PART !== 'status') await payoutRun();
if (PART !== 'run') await oneAccount();
await deps.close();
await engine.stop();
