/**
 * Money out at scale, the engine in its own process (as MongoDB would be):
 *   1. A payout run over P publishers (default 10,000) whose ledgers hold E entries in all (default
 *      1,000,000): payout-run:create, approve (by another admin) and export, time and this
 *      process's memory; then `ledger:verify` over the whole journal.
 *   2. `GET /balance/transactions/` (a page of 100, first and deep by cursor) and payment status
 *      for one publisher with B entries (default 1,000,000) against one with 1,000: p50/p99 of R
 *      sequential calls each (the use cases, as every surface calls them).
 * `npm run bench:payouts [-- --publishers 10000 --entries 1000000 --big 1000000 --requests 200]`
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@cw/config';
import { listBalanceTransactions, verifyLedger } from '@cw/ledger';
import { createLogger } from '@cw/logging';
import { createHttpMetrics } from '@cw/metrics';
import { paymentStatus } from '@cw/account';
import { operatorApprovePayoutRun, operatorCreatePayoutRun, operatorExportPayoutRun, setPayoutProfile } from '@cw/payouts';
import { openServiceDeps } from '@cw/runtime';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';

const OPTIONS = {
  publishers: { type: 'string', default: '10000' },
  entries: { type: 'string', default: '1000000' },
  big: { type: 'string', default: '1000000' },
  requests: { type: 'string', default: '200' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:payouts --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const P = Number(values.publishers);
const E = Number(values.entries);
const BIG = Number(values.big);
const R = Number(values.requests);

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

/** `n` commission entries of 0.50 EUR for the publisher, inserted in bulk, and its balance (as the journal would count them). */
async function ledgerOf(publisherId: string, n: number, base: number) {
  for (let done = 0; done < n; done += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, n - done) }, (_, i) => ({
      _id: `ltx_b${publisherId}_${done + i}`,
      publisher_id: publisherId,
      type: 'commission',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '0.50' },
        { account: 'merchant_commission', currency: 'EUR', amount: '-0.50' },
      ],
      created_at: new Date(base + done + i),
    }));
    await deps.models.LedgerTxn.insertMany(rows, { ordered: false });
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

// 2. One big account against a small one.
for (const [id, n] of [
  ['pub_bench_small', 1000],
  ['pub_bench_big', BIG],
] as const) {
  await deps.data.auth.createPublishers([{ _id: id, name: id, status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() }]);
  t = performance.now();
  await ledgerOf(id, n, 1_600_000_000_000);
  const principal = { publisher: (await deps.data.auth.publisherById(id))!, credentialId: 'bench', prefix: 'bench', type: 'api_key', keyKind: 'live' } as never;
  const first: number[] = [];
  const deep: number[] = [];
  const status: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < R; i++) {
    let s = performance.now();
    const page = await listBalanceTransactions(deps, principal, { page: 1, page_size: 100 });
    first.push(performance.now() - s);
    s = performance.now();
    const next: { next_cursor: string | null } = await listBalanceTransactions(deps, principal, { page: 1, page_size: 100, ...(cursor ? { cursor } : {}) });
    deep.push(performance.now() - s);
    cursor = next.next_cursor ?? page.next_cursor;
    s = performance.now();
    await paymentStatus(deps, principal);
    status.push(performance.now() - s);
  }
  const f = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms`;
  console.log(`${n} entries (setup ${ms(t)}): /balance/transactions/ first page ${f(first)}; next pages by cursor ${f(deep)}; /payment-status/ ${f(status)}`);
}
await deps.close();
await engine.stop();
