/**
 * `npm run bench:agenda -- [--jobs 1000] [--concurrency 64]`: how fast Agenda 6 on the MongoDB
 * backend (the embedded engine) runs one-time jobs that do nothing: the ceiling of "one Agenda job
 * per postback delivery". Jobs are created due now, then the worker starts; measured until the
 * last one has run.
 */
import { performance } from 'node:perf_hooks';
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { connectDatabase } from '@cw/db';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = {
  jobs: { type: 'string', default: '1000' },
  concurrency: { type: 'string', default: '64' },
  every: { type: 'string', default: '50' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:agenda --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const jobs = Number(values.jobs);
const engine = await startEmbeddedMongo();
const db = await connectDatabase(`${engine.uri}/bench_agenda`);
const agenda = new Agenda({ backend: new MongoBackend({ mongo: db.connection.db!, collection: 'jobs' }), processEvery: Number(values.every) });
let done = 0;
let finished: () => void = () => undefined;
const all = new Promise<void>((ok) => (finished = ok));
agenda.define(
  'noop',
  async () => {
    if (++done === jobs) finished();
  },
  { concurrency: Number(values.concurrency), removeOnComplete: true },
);
const created = performance.now();
for (let i = 0; i < jobs; i++) await agenda.create('noop', { i }).schedule(new Date()).save();
const start = performance.now();
await agenda.start();
await all;
const ms = performance.now() - start;
console.log(`created ${jobs} jobs in ${((start - created) / 1000).toFixed(1)} s = ${Math.round(jobs / ((start - created) / 1000))}/s`);
console.log(
  `ran ${jobs} no-op jobs in ${(ms / 1000).toFixed(1)} s = ${Math.round(jobs / (ms / 1000))} jobs/s (concurrency ${values.concurrency}, processEvery ${values.every} ms)`,
);
await agenda.stop();
await db.close();
await engine.stop();
