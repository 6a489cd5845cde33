/**
 * Durable embedded engine: insert throughput in memory vs with a data directory (journal synced
 * before every acknowledgement), for batched and for concurrent single-document writes, and
 * restart time (snapshot + journal replay, indexes rebuilt) at 100k and 1M documents.
 * `npm run bench:durability [-- --sizes 100000,1000000 --single 20000]`.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Decimal128, MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '@cw-tools/embedded-mongo';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = { sizes: { type: 'string', default: '100000,1000000' }, single: { type: 'string', default: '20000' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:durability --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const SIZES = values.sizes.split(',').map(Number);
const SINGLE = Number(values.single);

const product = (j: number) => ({
  _id: `p${String(j).padStart(8, '0')}`,
  gtin: String(4000000000000 + j),
  title: `Product ${j} trail running shoe with a reasonably long title`,
  country: j % 3 === 0 ? 'GB' : 'DE',
  program_id: j % 50,
  price: Decimal128.fromString(`${(j % 1000) + 0.99}`),
  availability: j % 7 === 0 ? 'out_of_stock' : 'in_stock',
  image: `https://cdn.example.com/img/${j}.jpg`,
  last_seen_at: new Date(),
});

async function open(dataDir?: string) {
  const m = await startEmbeddedMongo({ dataDir });
  const client = await MongoClient.connect(m.uri, { maxPoolSize: 16 });
  const coll = client.db('bench').collection<{ _id: string }>('products');
  return { m, client, coll };
}

async function batched(n: number, dataDir?: string): Promise<number> {
  const { m, client, coll } = await open(dataDir);
  await coll.createIndex({ gtin: 1 });
  await coll.createIndex({ country: 1, program_id: 1, _id: 1 });
  const t = performance.now();
  for (let i = 0; i < n; i += 1000) await coll.insertMany(Array.from({ length: Math.min(1000, n - i) }, (_, k) => product(i + k)));
  const rate = n / ((performance.now() - t) / 1000);
  await client.close();
  await m.stop();
  return rate;
}

async function concurrentSingles(n: number, writers: number, dataDir?: string): Promise<number> {
  const { m, client, coll } = await open(dataDir);
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let j = next++; j < n; j = next++) await coll.insertOne(product(j));
    }),
  );
  const rate = n / ((performance.now() - t) / 1000);
  await client.close();
  await m.stop();
  return rate;
}

/** Writes `size` documents into a fresh durable engine and stops it (journal only). */
async function fill(d: string, size: number): Promise<void> {
  const first = await open(d);
  await first.coll.createIndex({ gtin: 1 });
  await first.coll.createIndex({ country: 1, program_id: 1, _id: 1 });
  for (let i = 0; i < size; i += 1000) await first.coll.insertMany(Array.from({ length: Math.min(1000, size - i) }, (_, k) => product(i + k)));
  await first.client.close();
  await first.m.stop();
}

/** Start-up time from the journal alone; then a snapshot is written for the next start. */
async function timeStart(d: string, thenCompact: boolean): Promise<number> {
  const t = performance.now();
  const m = await startEmbeddedMongo({ dataDir: d, compactAfterBytes: Number.MAX_SAFE_INTEGER });
  const ms = performance.now() - t;
  if (thenCompact) await m.compact();
  await m.stop();
  return ms;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'cw-bench-durable-'));
  dirs.push(d);
  return d;
};

try {
  console.log('inserts/s                                   in memory      durable');
  const n = Math.min(100_000, SIZES[0]);
  console.log(`insertMany, batches of 1,000 (${fmt(n)})`.padEnd(44), fmt(await batched(n)).padStart(9), fmt(await batched(n, dir())).padStart(12));
  for (const writers of [1, 16]) {
    console.log(
      `insertOne, ${writers} concurrent writer(s) (${fmt(SINGLE)})`.padEnd(44),
      fmt(await concurrentSingles(SINGLE, writers)).padStart(9),
      fmt(await concurrentSingles(SINGLE, writers, dir())).padStart(12),
    );
  }

  console.log('\nrestart (load + index rebuild)     journal only     snapshot    data dir   heap of the data');
  for (const size of SIZES) {
    const d = dir();
    await fill(d, size);
    global.gc?.();
    const journalMs = await timeStart(d, true);
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const t = performance.now();
    let fromSnapshot: EmbeddedMongo | undefined = await startEmbeddedMongo({ dataDir: d });
    const snapshotMs = performance.now() - t;
    global.gc?.();
    const heap = process.memoryUsage().heapUsed;
    const extra = process.memoryUsage().arrayBuffers;
    // Every document read once (a full scan decodes what start-up left encoded).
    const reader = await MongoClient.connect(fromSnapshot.uri);
    const t2 = performance.now();
    const scanned = await reader
      .db('bench')
      .collection('products')
      .countDocuments({ title: { $exists: true } });
    const scanMs = performance.now() - t2;
    await reader.close();
    global.gc?.();
    const heapAfterScan = process.memoryUsage().heapUsed;
    await fromSnapshot.stop();
    fromSnapshot = undefined;
    const bytes = execSync(`du -sb ${d}`).toString().split('\t')[0];
    const mib = (n: number) => `${(n / 1048576).toFixed(0)} MiB`;
    console.log(
      `${fmt(size)} documents`.padEnd(35),
      `${(journalMs / 1000).toFixed(1)} s`.padStart(12),
      `${(snapshotMs / 1000).toFixed(1)} s`.padStart(12),
      mib(Number(bytes)).padStart(11),
      `+${mib(heap - heap0)}`.padStart(12),
      `(+${mib(extra)} buffers)`,
    );
    console.log(`  then every document read once (${fmt(scanned)}, ${(scanMs / 1000).toFixed(1)} s): heap of the data +${mib(heapAfterScan - heap0)}`);
    rmSync(d, { recursive: true, force: true });
    global.gc?.();
  }
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
