/** `npm start`: the whole platform on http://127.0.0.1:8080 (PORT), seeded, credentials written. */
import { ConfigError } from '@cw/config';
import { startPlatform } from './platform';

const started = Date.now();
try {
  const platform = await startPlatform({ env: process.env, progress: true });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`platform ready at ${platform.url} in ${seconds}s (${platform.config.mongodbUri ? 'MONGODB_URI' : 'embedded MongoDB engine'}, ${platform.config.redisUrl ? 'Redis' : 'in-memory'} rate limits)`);
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
