/**
 * `npm run mongo:embedded -- --port N [--data-dir DIR] [--ttl-interval-ms N]`: serves until
 * killed, prints its URI. With --data-dir the data survives restarts (and kill -9).
 */
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEmbeddedMongo } from './server';

const OPTIONS = {
  port: { type: 'string', default: '27017' },
  host: { type: 'string', default: '127.0.0.1' },
  'ttl-interval-ms': { type: 'string' },
  'data-dir': { type: 'string' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run mongo:embedded --', 'The embedded MongoDB-wire engine alone, until killed: in memory, or durable on --data-dir.', OPTIONS),
  OPTIONS,
);
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`error: --port must be an integer from 0 to 65535, got ${values.port}`);
  process.exit(2);
}
const ttl = values['ttl-interval-ms'] === undefined ? undefined : Number(values['ttl-interval-ms']);
startEmbeddedMongo({ port, host: values.host, ttlMonitorIntervalMs: ttl, dataDir: values['data-dir'] })
  .then((m) => {
    if (m.recovery) {
      const r = m.recovery;
      console.error(
        `loaded ${values['data-dir']}: snapshot ${r.snapshot ?? 'none'}, ${r.documents} documents, ${r.changes} journaled changes in ${r.ms} ms${r.skippedBytes ? `, ${r.skippedBytes} damaged bytes skipped` : ''}`,
      );
    }
    console.log(m.uri);
    const stop = () => void m.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  })
  .catch((e: Error) => {
    console.error(`embedded mongo failed to start: ${e.message}`);
    process.exit(1);
  });
