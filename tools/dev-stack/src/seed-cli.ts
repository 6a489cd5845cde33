/**
 * `npm run seed -- --products N [--reset]`: seeds the demo dataset (with a large catalog) into
 * MONGODB_URI, or into the running `npm start` platform's engine, and writes the credentials
 * file. Refuses a non-empty database unless --reset (which drops it first).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@cw/config';
import { connectDatabase, createModels, ensureIndexes } from '@cw/db';
import { generateDemoData, progressBar } from '@cw-tools/demo-data';
import { resolveMongoUri } from '@cw-tools/admin-cli';
import { CREDENTIALS_PATH, REPO_ROOT } from './platform';

const { values } = parseArgs({ options: { products: { type: 'string', default: '20000' }, reset: { type: 'boolean' }, seed: { type: 'string' } }, strict: true });
const products = Number(values.products);
if (!Number.isInteger(products) || products < 1 || products > 20_000_000) {
  console.error(`--products must be an integer from 1 to 20000000, got ${values.products}`);
  process.exit(2);
}
const uri = resolveMongoUri(process.env, REPO_ROOT);
if (!uri) {
  console.error('no database: set MONGODB_URI, or start `npm run mongo:embedded` / `npm start` first');
  process.exit(2);
}
const config = loadConfig(process.env, { port: 8080 });
const db = await connectDatabase(uri);
try {
  const models = createModels(db.connection);
  if ((await models.Publisher.estimatedDocumentCount()) > 0) {
    if (!values.reset) {
      console.error('the database is not empty: pass --reset to drop it and seed again');
      process.exit(2);
    }
    await db.connection.dropDatabase();
  }
  await ensureIndexes(models);
  const started = Date.now();
  const { counts, ...data } = await generateDemoData(models, { products, linkKey: config.secretKey, seed: values.seed ? Number(values.seed) : undefined, onProgress: progressBar('seeding products') });
  mkdirSync(dirname(CREDENTIALS_PATH), { recursive: true });
  writeFileSync(CREDENTIALS_PATH, `${JSON.stringify({ portal_url: config.portalUrl, base_url: `${config.portalUrl}/api/v1/publisher`, feed_url: config.feedUrl, ...data }, null, 2)}\n`, { mode: 0o600 });
  console.log(`seeded ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  console.log(`credentials: ${CREDENTIALS_PATH}`);
} finally {
  await db.close();
}
