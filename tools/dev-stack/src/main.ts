/**
 * `npm start [-- --fresh] [--in-memory] [--data-dir DIR]`: the whole platform on
 * http://127.0.0.1:8080 (PORT). Its data lives in .local/data and survives restarts; an empty
 * database is seeded and the credentials file written.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '@cw/config';
import { DATA_DIR, startPlatform } from './platform';
import { resetLocalData } from './reset';

const { values: args } = parseArgs({ options: { fresh: { type: 'boolean' }, 'in-memory': { type: 'boolean' }, 'data-dir': { type: 'string' } }, strict: true });
const started = Date.now();
try {
  const dataDir = args['in-memory'] ? null : (args['data-dir'] ?? DATA_DIR);
  if (args.fresh) resetLocalData(dataDir ?? undefined);
  const platform = await startPlatform({ env: process.env, progress: true, dataDir, say: (m) => console.log(m) });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const store = platform.config.mongodbUri ? 'MONGODB_URI' : dataDir ? `embedded MongoDB engine, data in ${dataDir}` : 'embedded MongoDB engine, in memory';
  console.log(`platform ready at ${platform.url} in ${seconds}s (${store}, ${platform.config.redisUrl ? 'Redis' : 'in-memory'} rate limits)`);
  if (platform.seeded) console.log(`seeded demo data: ${Object.entries(platform.seeded).map(([k, v]) => `${v} ${k}`).join(', ')}`);
  if (platform.credentialsPath) console.log(`credentials: ${platform.credentialsPath}`);
  console.log(`docs: ${platform.url}/api/v1/publisher/docs   health: ${platform.url}/healthz`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('stopping...');
    await platform.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
} catch (e) {
  console.error(e instanceof ConfigError ? e.message : `platform failed to start: ${(e as Error).stack ?? e}`);
  process.exit(1);
}
