/**
 * `npm run seed -- --products N [--reset]`: seeds the demo dataset (with a large catalog) into
 * MONGODB_URI, or into the running `npm start` platform's engine, and writes its credentials: to
 * .local/credentials.json when that file is this database's (or free), else beside it under this
 * database's name (local-files.ts). Refuses a non-empty database unless --reset (which drops it first).
 */
import { parseCommandLine } from '@cw-tools/cli-kit';
import { loadConfig } from '@cw/config';
import { connectDatabase, migrateIndexes } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { generateDemoData, progressBar } from '@cw-tools/demo-data';
import { resolveMongoUri, runningLocalPlatform, storeOf, writeCredentials } from '@cw-tools/admin-cli';
import { CREDENTIALS_PATH, REPO_ROOT } from './platform';

const USAGE = `usage: npm run seed -- [--products N] [--reset] [--seed N]

Seeds the demo dataset into MONGODB_URI, or into the running \`npm start\` platform's database,
and writes its credentials file.

  --products N   catalog size, 1 to 20000000 (default 20000)
  --reset        drop a non-empty database first (its keys stop working)
  --seed N       the random seed of the generated data
  --help         this text`;

const values = parseCommandLine(USAGE, { products: { type: 'string', default: '20000' }, reset: { type: 'boolean' }, seed: { type: 'string' } });
const products = Number(values.products);
if (!Number.isInteger(products) || products < 1 || products > 20_000_000) {
  console.error(`error: --products must be an integer from 1 to 20000000, got ${values.products}`);
  process.exit(2);
}
const uri = resolveMongoUri(process.env, REPO_ROOT);
if (!uri) {
  console.error('error: no database: set MONGODB_URI, or start `npm run mongo:embedded` / `npm start` first');
  process.exit(2);
}
const config = loadConfig(process.env, { port: 8080 });
const store = config.mongodbUri ? storeOf({ mongodbUri: config.mongodbUri }) : (runningLocalPlatform(REPO_ROOT)?.store ?? storeOf({ mongodbUri: uri }));
const db = await connectDatabase(uri);
try {
  const { models, data: platformData } = openPlatformData(db.connection);
  if ((await models.Publisher.estimatedDocumentCount()) > 0) {
    if (!values.reset) {
      console.error('error: the database is not empty: pass --reset to drop it and seed again');
      process.exit(2);
    }
    await db.connection.dropDatabase();
  }
  await migrateIndexes(models);
  const started = Date.now();
  const { counts, ...data } = await generateDemoData(
    { models, data: platformData },
    {
      products,
      linkKey: config.secretKey,
      seed: values.seed ? Number(values.seed) : undefined,
      onProgress: progressBar('seeding products'),
    },
  );
  const written = writeCredentials(CREDENTIALS_PATH, store, {
    portal_url: config.portalUrl,
    base_url: `${config.portalUrl}/api/v1/publisher`,
    feed_url: config.feedUrl,
    ...data,
  });
  console.log(
    `seeded ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  if (written.moved) console.log(written.moved);
  console.log(`credentials: ${written.path}`);
} finally {
  await db.close();
}
