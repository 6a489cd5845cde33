/**
 * `npm start [-- --fresh] [--in-memory] [--data-dir DIR]`: the whole platform on
 * http://127.0.0.1:8080 (PORT). Its data lives in .local/data and survives restarts; an empty
 * database is seeded and the credentials file written (beside the data it belongs to).
 */
import { ConfigError } from '@cw/config';
import { startTelemetry } from '@cw/telemetry';
import { localRunFiles } from '@cw-tools/admin-cli';
import { parseCommandLine } from '@cw-tools/cli-kit';
import { PortInUseError, REPO_ROOT, startPlatform } from './platform';
import { LocalDataInUseError, resetLocalData } from './reset';

// The terminal or the pipe that reads the output may go first (`npm start | head`, a supervisor
// restarting its log reader): a write to it then fails, and must not take the platform down
// with it, least of all while it stops and writes its buffered clicks.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

const USAGE = `usage: npm start [-- --fresh] [--in-memory] [--data-dir DIR]

Starts every app of the platform in one process on PORT (8080), on the embedded MongoDB engine
(MONGODB_URI when set), seeds an empty database and writes its credentials file.

  --fresh          wipe the data directory and its credentials first (refused while a platform uses it)
  --in-memory      keep no data; credentials go to .local/in-memory/credentials.json
  --data-dir DIR   keep the data in DIR (default .local/data); credentials go to DIR/credentials.json
  --help           this text`;

const args = parseCommandLine(USAGE, { fresh: { type: 'boolean' }, 'in-memory': { type: 'boolean' }, 'data-dir': { type: 'string' } });
if (args['in-memory'] && args['data-dir']) {
  console.error('error: --in-memory and --data-dir exclude each other (see npm start -- --help)');
  process.exit(2);
}
const started = Date.now();
try {
  const files = localRunFiles(REPO_ROOT, { inMemory: args['in-memory'] === true, dataDir: args['data-dir'] as string | undefined });
  if (args.fresh) resetLocalData(files);
  // Traces only when the OTEL_* variables ask for them (no SDK loaded otherwise).
  await startTelemetry(process.env, 'platform');
  const platform = await startPlatform({
    env: process.env,
    progress: true,
    dataDir: files.dataDir,
    credentialsPath: files.credentialsPath,
    infoPath: files.infoPath,
    say: (m) => console.log(m),
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const store = platform.config.mongodbUri
    ? 'MONGODB_URI'
    : files.dataDir
      ? `embedded MongoDB engine, data in ${files.dataDir}`
      : 'embedded MongoDB engine, in memory';
  console.log(
    `platform ready at ${platform.url} in ${seconds}s (${store}, ${platform.config.redisClusterNodes ? 'Redis Cluster' : platform.config.redisUrl ? 'Redis' : 'in-memory'} rate limits)`,
  );
  if (platform.seeded)
    console.log(
      `seeded demo data: ${Object.entries(platform.seeded)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}`,
    );
  if (platform.credentialsPath) console.log(`credentials: ${platform.credentialsPath}`);
  if (!files.dataDir && !platform.config.mongodbUri) console.log(`database (for MONGODB_URI=… npm run admin): ${platform.mongoUri}`);
  console.log(
    `portal: ${platform.url}/signin (publishers[0].portal_login in the credentials file)   docs: ${platform.url}/docs   health: ${platform.url}/healthz`,
  );
  if (platform.config.metricsToken)
    console.log(
      `metrics: ${platform.url}/metrics with Authorization: Bearer ${platform.credentialsPath ? '<metrics_token in the credentials file>' : platform.config.metricsToken}`,
    );
  if (platform.config.postbackAllowInsecure)
    console.log('postback targets: http and loopback allowed (local platform; POSTBACK_ALLOW_INSECURE=false refuses them)');
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
  const known =
    e instanceof ConfigError || e instanceof PortInUseError || e instanceof LocalDataInUseError || /^data directory .* is in use/.test((e as Error).message);
  console.error(known ? `error: ${(e as Error).message}` : `platform failed to start: ${(e as Error).stack ?? e}`);
  process.exit(known ? 2 : 1);
}
