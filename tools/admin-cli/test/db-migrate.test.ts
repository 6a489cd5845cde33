/**
 * Index migrations (libs/platform/db/src/migrate.ts and `npm run admin -- db:migrate`) against the engine
 * through the real driver: a fresh database's missing indexes named, created once, a changed one
 * rebuilt, undeclared ones dropped only when asked.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, declaredIndexes, migrateIndexes, verifyIndexes, type Database } from '@cw/db';
import { openPlatformData, type Models } from '@cw/runtime';
import { createTestDatabase, type TestDatabase } from '@cw-tools/testing';
import { runCli } from '../src/cli';

let tdb: TestDatabase;
let db: Database;
let models: Models;

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = await connectDatabase(tdb.uri);
  ({ models } = openPlatformData(db.connection));
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
    expect(missing).toContain('conversions {"publisher_id":1,"occurred_at":-1,"_id":1}');
    const cli = await runCli(['db:migrate', '--json'], { MONGODB_URI: tdb.uri }, mkdtempSync(join(tmpdir(), 'migrate-')));
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.out)).toEqual({ indexes: declared.length, created: declared.length, rebuilt: 0, modified: 0, dropped: 0, present: 0 });
    expect(await verifyIndexes(models)).toEqual([]);
    expect((await migrateIndexes(models)).every((s) => s.action === 'present')).toBe(true);
  });

  it('rebuild an index whose options changed, and drop undeclared ones only when asked', async () => {
    const credentials = db.connection.db!.collection('credentials');
    const unique = (await credentials.listIndexes().toArray()).find((i) => i.unique)!;
    await credentials.dropIndex(unique.name);
    await credentials.createIndex(unique.key, { name: unique.name });
    await credentials.createIndex({ status: 1 }, { name: 'stray_1' });
    expect(await verifyIndexes(models)).toEqual([`credentials ${JSON.stringify(unique.key)} (options differ)`]);
    const steps = await migrateIndexes(models);
    expect(steps.filter((s) => s.action !== 'present')).toEqual([{ collection: 'credentials', index: unique.name, action: 'rebuilt' }]);
    expect((await credentials.listIndexes().toArray()).find((i) => i.name === unique.name)?.unique).toBe(true);
    expect((await credentials.listIndexes().toArray()).some((i) => i.name === 'stray_1')).toBe(true);
    const dropped = await migrateIndexes(models, { dropUndeclared: true });
    expect(dropped.filter((s) => s.action === 'dropped')).toEqual([{ collection: 'credentials', index: 'stray_1', action: 'dropped' }]);
  });

  it('change a TTL in place (collMod) when only its seconds differ', async () => {
    const deliveries = db.connection.db!.collection('postback_deliveries');
    const ttl = (await deliveries.listIndexes().toArray()).find((i) => i.expireAfterSeconds !== undefined)!;
    await db.connection.db!.command({ collMod: 'postback_deliveries', index: { name: ttl.name, expireAfterSeconds: 999 } });
    expect(await verifyIndexes(models)).toEqual([`postback_deliveries ${JSON.stringify(ttl.key)} (options differ)`]);
    const steps = await migrateIndexes(models);
    expect(steps.filter((s) => s.action !== 'present')).toEqual([{ collection: 'postback_deliveries', index: ttl.name, action: 'modified' }]);
    expect((await deliveries.listIndexes().toArray()).find((i) => i.name === ttl.name)!.expireAfterSeconds).toBe(ttl.expireAfterSeconds);
  });

  it('retire the unique indexes a sharded cluster cannot keep (order dedupe and link identity now live in _id)', async () => {
    // What a database migrated before the sharding-ready model holds.
    await db.connection
      .db!.collection('conversions')
      .createIndex(
        { campaign_id: 1, order_ref: 1 },
        { name: 'campaign_id_1_order_ref_1', unique: true, partialFilterExpression: { order_ref: { $type: 'string' } } },
      );
    await db.connection
      .db!.collection('links')
      .createIndex({ publisher_id: 1, program_id: 1, landing_url: 1, subid: 1 }, { name: 'publisher_id_1_program_id_1_landing_url_1_subid_1', unique: true });
    expect(await verifyIndexes(models)).toEqual([]);
    const cli = await runCli(['db:migrate', '--drop-undeclared', '--json'], { MONGODB_URI: tdb.uri }, mkdtempSync(join(tmpdir(), 'migrate-')));
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({ created: 0, rebuilt: 0, dropped: 2 });
    const unique = async (c: string) => (await db.connection.db!.collection(c).listIndexes().toArray()).filter((i) => i.unique).map((i) => i.name);
    expect(await unique('conversions')).toEqual([]);
    expect(await unique('links')).toEqual([]);
  });

  it('shards only through a mongos: --shard on a plain server says so and changes nothing', async () => {
    const cli = await runCli(['db:migrate', '--shard'], { MONGODB_URI: tdb.uri }, mkdtempSync(join(tmpdir(), 'migrate-')));
    expect(cli.code).toBe(2);
    expect(cli.out).toBe("error: --shard needs a mongos (a sharded cluster's router): this server is not one");
  });
});
