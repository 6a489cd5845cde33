/**
 * Index migrations (libs/db/src/migrate.ts and `npm run admin -- db:migrate`) against the engine
 * through the real driver: a fresh database's missing indexes named, created once, a changed one
 * rebuilt, undeclared ones dropped only when asked.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, createModels, declaredIndexes, migrateIndexes, verifyIndexes, type Database, type Models } from '@cw/db';
import { createTestDatabase, type TestDatabase } from '@cw-tools/testing';
import { runCli } from '../src/cli';

let tdb: TestDatabase;
let db: Database;
let models: Models;

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = await connectDatabase(tdb.uri);
  models = createModels(db.connection);
});
afterAll(async () => {
  await db?.close();
  await tdb?.stop();
});

describe('index migrations', () => {
  it('name every missing index on a fresh database, then create them all, once', async () => {
    const declared = declaredIndexes(models);
    expect(declared.length).toBeGreaterThan(20);
    const missing = await verifyIndexes(models);
    expect(missing).toHaveLength(declared.length);
    expect(missing).toContain('conversions {"campaign_id":1,"order_ref":1}');
    const cli = await runCli(['db:migrate', '--json'], { MONGODB_URI: tdb.uri }, mkdtempSync(join(tmpdir(), 'migrate-')));
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.out)).toEqual({ indexes: declared.length, created: declared.length, rebuilt: 0, dropped: 0, present: 0 });
    expect(await verifyIndexes(models)).toEqual([]);
    expect((await migrateIndexes(models)).every((s) => s.action === 'present')).toBe(true);
  });

  it('rebuild an index whose options changed, and drop undeclared ones only when asked', async () => {
    const links = db.connection.db!.collection('links');
    const unique = (await links.listIndexes().toArray()).find((i) => i.unique)!;
    await links.dropIndex(unique.name);
    await links.createIndex(unique.key, { name: unique.name });
    await links.createIndex({ landing_url: 1 }, { name: 'stray_1' });
    expect(await verifyIndexes(models)).toEqual([`links ${JSON.stringify(unique.key)} (options differ)`]);
    const steps = await migrateIndexes(models);
    expect(steps.filter((s) => s.action !== 'present')).toEqual([{ collection: 'links', index: unique.name, action: 'rebuilt' }]);
    expect((await links.listIndexes().toArray()).find((i) => i.name === unique.name)?.unique).toBe(true);
    expect((await links.listIndexes().toArray()).some((i) => i.name === 'stray_1')).toBe(true);
    const dropped = await migrateIndexes(models, { dropUndeclared: true });
    expect(dropped.filter((s) => s.action === 'dropped')).toEqual([{ collection: 'links', index: 'stray_1', action: 'dropped' }]);
  });
});
