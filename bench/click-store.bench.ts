/**
 * Storing clicks, apart from HTTP: tracker-shaped batches of 1,000 clicks (made by `clickRecord`,
 * as the redirect makes them) stored and counted by `storeCountedClicks`, as the tracker does,
 * into the engine in its own process. CPU per click of this process (our code, mongoose, the
 * driver, bson, and counting in the stats read model) and of the engine's process.
 *
 * `node --import tsx bench/click-store.bench.ts [--batches 100 --links 1]`
 */
import { storeCountedClicks } from '@cw/stats';
import { connectDatabase, migrateIndexes } from '@cw/db';
import { ClickIds, clickRecord } from '@cw/links';
import { openPlatformData } from '@cw/runtime';
import { keyRing } from '@cw/config';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { processCpuMicros, startEngineProcess } from './lib/engine-process';

const OPTIONS = {
  batches: { type: 'string', default: '100' },
  /** Links the clicks of a batch spread over (the redirect bench: 1). */
  links: { type: 'string', default: '1' },
} as const;
const values = parseCommandLine(generatedUsage('npm run bench:click-store --', 'Storing click batches: CPU per click.', OPTIONS), OPTIONS);
const BATCHES = Number(values.batches);
const LINKS = Number(values.links);

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
      { userAgent: UA, referrer: i % 3 ? '' : `https://blog.example/post-${i % 20}`, ip: `203.0.${b % 250}.${i % 250}`, overRate: () => false },
      ids,
      key,
    );
  });
// Warm up, then measure.
for (let b = 0; b < 5; b++) await storeCountedClicks({ data }, batch(b), (rows) => data.links.insertClickRows(rows));
const cpu0 = process.cpuUsage();
const engine0 = processCpuMicros(engine.pid);
const t0 = performance.now();
let made = 0;
for (let b = 5; b < 5 + BATCHES; b++) {
  const clicks = batch(b);
  const m0 = process.cpuUsage();
  await storeCountedClicks({ data }, clicks, (rows) => data.links.insertClickRows(rows));
  const m = process.cpuUsage(m0);
  made += m.user + m.system;
}
const ms = performance.now() - t0;
const used = process.cpuUsage(cpu0);
const n = BATCHES * 1000;
console.log(
  `${n} clicks in ${BATCHES} batches over ${LINKS} link(s): ${((1000 * n) / ms).toFixed(0)} clicks/s stored and counted; CPU per click: this process ${((used.user + used.system) / n).toFixed(1)} us (of it the store ${(made / n).toFixed(1)} us, the rest making the clicks), engine ${((processCpuMicros(engine.pid) - engine0) / n).toFixed(1)} us`,
);
await db.connection.close();
await engine.stop();
