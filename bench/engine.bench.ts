/**
 * Embedded engine benchmark: insert throughput and indexed-read latency at 100k documents,
 * through the real MongoDB driver over TCP; then every document read through one cursor (a
 * sorted, projected find and a $match/$project aggregate, as an export reads) while the engine's
 * memory is sampled. The engine runs in its own process (`--engine child`, the default) so its
 * memory is its own. `npm run bench:engine [-- --docs N --engine child|inline]`.
 */
import { performance } from 'node:perf_hooks';
import { Decimal128, MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { startEngineProcess } from './lib/engine-process';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = {
  docs: { type: 'string', default: '100000' },
  reads: { type: 'string', default: '5000' },
  engine: { type: 'string', default: 'child' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:engine --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const DOCS = Number(values.docs);
const READS = Number(values.reads);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeReads(label: string, fn: (i: number) => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`${label.padEnd(44)} mean ${mean.toFixed(3)} ms  p50 ${pct(times, 50).toFixed(3)} ms  p99 ${pct(times, 99).toFixed(3)} ms`);
}

const m = values.engine === 'inline' ? await startEmbeddedMongo() : await startEngineProcess('bench');
const client = await MongoClient.connect(m.uri);
const coll = client.db('bench').collection<{ _id: string; [field: string]: unknown }>('products');
await coll.createIndex({ gtin: 1 });
await coll.createIndex({ country: 1, program_id: 1, _id: 1 });
await coll.createIndex({ price: 1 });

/** The engine's memory (MiB), as its serverStatus reports it. */
async function engineMemory(): Promise<{ resident: number; heapUsed: number }> {
  const { mem } = await client.db('admin').command({ serverStatus: 1 });
  return { resident: Number(mem.resident), heapUsed: Number(mem.heapUsed) };
}

const rssBefore = (await engineMemory()).resident;
const t0 = performance.now();
const BATCH = 1000;
for (let i = 0; i < DOCS; i += BATCH) {
  const docs = [];
  for (let j = i; j < Math.min(DOCS, i + BATCH); j++) {
    docs.push({
      _id: `p${String(j).padStart(8, '0')}`,
      gtin: String(4000000000000 + j),
      title: `Product ${j} running shoe`,
      country: j % 3 === 0 ? 'GB' : 'DE',
      program_id: j % 50,
      price: Decimal128.fromString(`${(j % 1000) + 0.99}`),
      availability: j % 7 === 0 ? 'out_of_stock' : 'in_stock',
    });
  }
  await coll.insertMany(docs, { ordered: false });
}
const insertSeconds = (performance.now() - t0) / 1000;
console.log(`inserted ${DOCS} documents in ${insertSeconds.toFixed(2)} s: ${Math.round(DOCS / insertSeconds)} inserts/s (batches of ${BATCH})`);
console.log(`engine rss growth ${(await engineMemory()).resident - rssBefore} MiB`);

await timeReads('findOne by indexed gtin', (i) => coll.findOne({ gtin: String(4000000000000 + ((i * 7919) % DOCS)) }));
await timeReads('findOne by _id', (i) => coll.findOne({ _id: `p${String((i * 104729) % DOCS).padStart(8, '0')}` }));
await timeReads('find country+program sorted by _id, limit 20', (i) =>
  coll
    .find({ country: 'DE', program_id: i % 50, availability: 'in_stock' })
    .sort({ _id: 1 })
    .limit(20)
    .toArray(),
);
await timeReads('find price range (Decimal128), limit 20', (i) =>
  coll
    .find({ price: { $gte: Decimal128.fromString(`${i % 900}`), $lt: Decimal128.fromString(`${(i % 900) + 5}`) } })
    .limit(20)
    .toArray(),
);
/** Reads a whole cursor as an export does (one batch at a time), sampling the engine's memory. */
async function exportAll(label: string, cursor: AsyncIterable<unknown>): Promise<void> {
  const before = await engineMemory();
  let peak = before;
  let rows = 0;
  const t = performance.now();
  for await (const _ of cursor) {
    if (++rows % 20_000 === 0) {
      const now = await engineMemory();
      if (now.resident > peak.resident) peak = { ...now };
    }
  }
  const s = (performance.now() - t) / 1000;
  console.log(
    `${label.padEnd(44)} ${rows} rows in ${s.toFixed(1)} s (${Math.round(rows / s)}/s); engine rss ${before.resident} -> peak ${peak.resident} MiB, heap ${before.heapUsed} -> ${peak.heapUsed} MiB`,
  );
}

const projection = { _id: 1, gtin: 1, price: 1, country: 1 };
await exportAll('export: find sorted by _id, projected', coll.find({}, { projection, batchSize: 1000 }).sort({ _id: 1 }));
await exportAll(
  'export: aggregate $match/$project',
  coll.aggregate([{ $match: { country: { $in: ['DE', 'GB'] } } }, { $project: projection }], { batchSize: 1000 }),
);
await client.close();
await m.stop();
