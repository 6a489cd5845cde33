/**
 * The AS table of the `datacenter` bot flag (docs/decisions/0067-datacenter-clicks.md): load time
 * of the `@ip-location-db/asn` package's two numeric CSV files into typed arrays, at once (`load`)
 * and in slices (`loadAsync`, as the tracker loads it: the longest time the event loop was held),
 * the memory the table keeps (heap and array buffers after GC), and the cost of a lookup: an
 * address never seen (the binary search, IPv4 and IPv6) and a memoised one (what a click pays for
 * a returning visitor); and A B in one run, the click's record as the redirect builds it with the
 * flag asked (64 visitors in no hosting network, memoised) and without.
 * `npm run bench:asn-table [-- --rounds 3 --lookups 200000]`
 */
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { keyRing } from '@cw/config';
import { AsnTable, clickRecord, ClickIds, NetworkLookup } from '@cw/links';

const OPTIONS = {
  rounds: { type: 'string', default: '3' },
  lookups: { type: 'string', default: '200000' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:asn-table --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const ROUNDS = Number(values.rounds);
const LOOKUPS = Number(values.lookups);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc (npm run bench:asn-table does)');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

function settle() {
  gc!();
  gc!();
  return process.memoryUsage();
}

const syncMs: number[] = [];
const asyncMs: number[] = [];
const longestSliceMs: number[] = [];
let table: AsnTable | undefined;
let kept = { heap: 0, buffers: 0 };
for (let r = 0; r < ROUNDS; r++) {
  table = undefined;
  const before = settle();
  let t = performance.now();
  table = AsnTable.load();
  syncMs.push(performance.now() - t);
  const after = settle();
  kept = { heap: after.heapUsed - before.heapUsed, buffers: after.arrayBuffers - before.arrayBuffers };
  // In slices, with a timer measuring how long the event loop was held between its turns.
  let longest = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  t = performance.now();
  await AsnTable.loadAsync();
  asyncMs.push(performance.now() - t);
  clearInterval(probe);
  longestSliceMs.push(longest);
}

// Lookups: addresses spread over the whole space (most inside some range), never the same twice.
const v4 = Array.from({ length: LOOKUPS }, (_, i) => {
  const n = (Math.imul(i + 1, 2654435761) >>> 0) % 0xdfffffff;
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
});
const v6 = Array.from(
  { length: LOOKUPS },
  (_, i) => `2${(i % 3).toString(16)}${((i * 7919) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xffff).toString(16)}::${i.toString(16)}`,
);
function perLookup(ips: string[], f: (ip: string) => unknown): number {
  let found = 0;
  const t = performance.now();
  for (const ip of ips) if (f(ip) !== undefined) found++;
  const ns = ((performance.now() - t) * 1e6) / ips.length;
  if (found === 0) throw new Error('no address found: the table is empty?');
  return ns;
}
const t4 = perLookup(v4, (ip) => table!.asnOf(ip));
const t6 = perLookup(v6, (ip) => table!.asnOf(ip));
const networks = new NetworkLookup();
await networks.start();
// 64 visitors in no hosting network: a flagged click's record differs (its reason), so the A B below weighs the lookup alone.
const seen = v4.filter((ip) => !networks.datacenter(ip)).slice(0, 64);
for (const ip of seen) networks.datacenter(ip);
const memo = perLookup(
  Array.from({ length: LOOKUPS }, (_, i) => seen[i % 64]!),
  (ip) => networks.datacenter(ip),
);

// The click's record A B: with the flag asked of the lookup (as the tracker does) and without, alternating.
const ids = new ClickIds(keyRing(Buffer.alloc(32, 7)));
const key = Buffer.alloc(32, 9);
const target = { linkId: 'AbCdEf1234567x', publisherId: 'pub_bench', programId: 1001, merchantId: 501, subid: 'bench' };
const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
function records(withFlag: boolean, n: number): number {
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    const ip = seen[i % 64]!;
    clickRecord(
      target,
      { userAgent: ua, referrer: '', ip, rates: undefined, overIpLimit: false, datacenter: withFlag ? networks.datacenter(ip) : false },
      ids,
      key,
    );
  }
  return ((performance.now() - t) * 1e3) / n;
}
records(true, LOOKUPS);
records(false, LOOKUPS);
const withUs: number[] = [];
const withoutUs: number[] = [];
// A B B A …: neither side always runs after the other (the garbage one round leaves is collected in the next).
for (let r = 0; r < 6; r++) {
  if (r % 2 === 0) withoutUs.push(records(false, LOOKUPS));
  withUs.push(records(true, LOOKUPS));
  if (r % 2 === 1) withoutUs.push(records(false, LOOKUPS));
}

console.log(`AS table: ${table!.size.v4} IPv4 rows, ${table!.size.v6} IPv6 rows; ${ROUNDS} rounds, median`);
console.log(`  load at once (load):        ${median(syncMs).toFixed(0)} ms (rounds ${syncMs.map((x) => x.toFixed(0)).join(', ')})`);
console.log(
  `  load in slices (loadAsync): ${median(asyncMs).toFixed(0)} ms (rounds ${asyncMs.map((x) => x.toFixed(0)).join(', ')}); event loop held at most ${median(longestSliceMs).toFixed(0)} ms at a time`,
);
console.log(`  kept after GC: heap ${mib(kept.heap)}, array buffers ${mib(kept.buffers)}`);
console.log(`  lookup of an address never seen: IPv4 ${t4.toFixed(0)} ns, IPv6 ${t6.toFixed(0)} ns; a memoised address (datacenter()): ${memo.toFixed(0)} ns`);
console.log(
  `  the click's record (clickRecord), 6 rounds A B B A: ${median(withoutUs).toFixed(2)} us without the flag, ${median(withUs).toFixed(2)} us with it (rounds ${withoutUs.map((x) => x.toFixed(2)).join('/')} vs ${withUs.map((x) => x.toFixed(2)).join('/')})`,
);
