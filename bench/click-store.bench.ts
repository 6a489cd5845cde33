/**
 * Storing clicks, apart from HTTP: tracker-shaped batches of 1,000 clicks (made by `clickRecord`,
 * as the redirect makes them) into the engine in its own process, three ways: stored and counted
 * by their writer (`storeCountedClicks`, the tracker before the worker counted clicks), stored only
 * (`storeClicks`, the tracker now), and counted by the worker `--group` batches a round
 * (`countStoredClicks`). CPU per click of this process (our code, mongoose, the driver, bson, the
 * stats read model's counting) and of the engine's process.
 *
 * `npm run bench:click-store [-- --batches 100 --links 1 --group 4]`
 */
import { countStoredClicks, storeClicks, storeCountedClicks } from '@cw/stats';
import { connectDatabase, migrateIndexes } from '@cw/db';
import { ClickIds, clickRecord, type ClickRow } from '@cw/links';
import { openPlatformData } from '@cw/runtime';
import { keyRing } from '@cw/config';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { processCpuMicros, startEngineProcess } from './lib/engine-process';

const OPTIONS = {
  batches: { type: 'string', default: '100' },
  /** Links the clicks of a batch spread over (the redirect bench: 1). */
  links: { type: 'string', default: '1' },
  /** Stored batches the worker counts in one round (the tracker's batches per poll interval). */
  group: { type: 'string', default: '4' },
} as const;
const values = parseCommandLine(generatedUsage('npm run bench:click-store --', 'Storing click batches: CPU per click.', OPTIONS), OPTIONS);
const BATCHES = Number(values.batches);
const LINKS = Number(values.links);
const GROUP = Number(values.group);

const engine = await startEngineProcess('bench_clicks');
const db = await connectDatabase(engine.uri);
const { models, data } = openPlatformData(db.connection);
await migrateIndexes(models);
const ids = new ClickIds(keyRing(Buffer.alloc(32, 1)));
const key = Buffer.alloc(32, 2);
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const batch = (b: number) =>
  Array.from({ length: 1000 }, (_, i) => {
    const l = (b * 1000 + i) % LINKS;
    return clickRecord(
      { linkId: `Lk${String(l).padStart(10, '0')}`, publisherId: 'pub_bench', programId: 1001 + (l % 5), merchantId: 501 + (l % 5), subid: `sub-${l % 40}` },
      { userAgent: UA, referrer: i % 3 ? '' : `https://blog.example/post-${i % 20}`, ip: `203.0.${b % 250}.${i % 250}`, rates: undefined, overIpLimit: false },
      ids,
      key,
    );
  });
/** CPU of this process and of the engine around `run`, per click. */
async function measure(n: number, run: () => Promise<void>): Promise<{ perSecond: number; self: number; engine: number }> {
  const cpu0 = process.cpuUsage();
  const engine0 = processCpuMicros(engine.pid);
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  return { perSecond: (1000 * n) / ms, self: (used.user + used.system) / n, engine: (processCpuMicros(engine.pid) - engine0) / n };
}
const insert = (rows: ClickRow[], txn: string) => data.links.insertClickRows(rows, txn);

// Warm up, then measure. The clicks are made before each measure, so only storing and counting is in it.
for (let b = 0; b < 5; b++) await storeCountedClicks({ data }, batch(b), insert);
const n = BATCHES * 1000;
const batches = (from: number) => Array.from({ length: BATCHES }, (_, i) => batch(from + i));

// As before issue 45's worker counting: each batch stored and counted by its writer.
const each = batches(5);
const before = await measure(n, async () => {
  for (const b of each) await storeCountedClicks({ data }, b, insert);
});
// The tracker now: each batch stored only.
const stored = batches(5 + BATCHES);
const tracker = await measure(n, async () => {
  for (const b of stored) await storeClicks({ data }, b, insert);
});
// The worker: rounds of GROUP stored batches counted together.
const worker = await measure(n, async () => {
  while ((await countStoredClicks({ data }, { rounds: 1, batches: GROUP })) > 0);
});
const line = (name: string, m: { perSecond: number; self: number; engine: number }) =>
  `  ${name.padEnd(44)} ${m.perSecond.toFixed(0).padStart(7)} clicks/s   CPU per click: this process ${m.self.toFixed(1).padStart(6)} us, engine ${m.engine.toFixed(1).padStart(6)} us`;
console.log(`${n} clicks in ${BATCHES} batches of 1,000 over ${LINKS} link(s):`);
console.log(line('stored and counted by the writer (before)', before));
console.log(line('stored by the tracker (now)', tracker));
console.log(line(`counted by the worker, ${GROUP} batches a round`, worker));
await db.connection.close();
await engine.stop();
// Exits by itself: nothing above must keep the process alive once the figures are out.
process.exit(0);
