/**
 * Never silently wrong: what the engine does not implement is refused through the real driver with
 * an error naming it, never accepted and ignored (a collation that would change a result, views,
 * time series, text indexes...). What it does implement of the same options still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src/index';

let m: EmbeddedMongo;
let client: MongoClient;
let db: Db;
beforeAll(async () => {
  m = await startEmbeddedMongo();
  client = await new MongoClient(m.uri).connect();
  db = client.db('unsupported');
  await db.collection('c').insertMany([
    { _id: 1 as never, name: 'Ana' },
    { _id: 2 as never, name: 'ana' },
  ]);
});
afterAll(async () => {
  await client?.close();
  await m?.stop();
});

async function refused(p: Promise<unknown>, codeName: string, text: RegExp) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(MongoServerError);
  expect((e as MongoServerError).codeName).toBe(codeName);
  expect((e as MongoServerError).message).toMatch(text);
}

describe('what the engine does not implement is refused', () => {
  it('a collation other than simple, on reads, writes and indexes; simple works', async () => {
    const c = db.collection('c');
    const en = { locale: 'en', strength: 2 };
    await refused(c.find({ name: 'ana' }, { collation: en }).toArray(), 'CommandNotSupported', /collation/);
    await refused(c.aggregate([{ $match: { name: 'ana' } }], { collation: en }).toArray(), 'CommandNotSupported', /collation/);
    await refused(c.countDocuments({ name: 'ana' }, { collation: en }), 'CommandNotSupported', /collation/);
    await refused(c.distinct('name', {}, { collation: en }), 'CommandNotSupported', /collation/);
    await refused(c.updateMany({ name: 'ana' }, { $set: { x: 1 } }, { collation: en }), 'CommandNotSupported', /collation/);
    await refused(c.deleteMany({ name: 'ana' }, { collation: en }), 'CommandNotSupported', /collation/);
    await refused(c.findOneAndUpdate({ name: 'ana' }, { $set: { x: 1 } }, { collation: en }), 'CommandNotSupported', /collation/);
    await refused(c.createIndex({ name: 1 }, { collation: en }), 'CommandNotSupported', /collation/);
    // Nothing was changed by the refused writes.
    expect(await c.countDocuments({ x: 1 })).toBe(0);
    expect(await c.countDocuments({})).toBe(2);
    expect(await c.find({ name: 'ana' }, { collation: { locale: 'simple' } }).toArray()).toEqual([{ _id: 2, name: 'ana' }]);
  });

  it('a let variable given as an expression (constants are taken)', async () => {
    await refused(
      db
        .collection('c')
        .find({ $expr: { $eq: ['$name', '$$who'] } }, { let: { who: { $concat: ['a', 'na'] } } })
        .toArray(),
      'CommandNotSupported',
      /expression/,
    );
  });

  it('views, time series, clustered and capped collections, validators', async () => {
    await refused(db.createCollection('v', { viewOn: 'c', pipeline: [{ $match: { name: 'ana' } }] }), 'CommandNotSupported', /viewOn/);
    await refused(db.createCollection('ts', { timeseries: { timeField: 't' } }), 'CommandNotSupported', /timeseries/);
    await refused(db.createCollection('cl', { clusteredIndex: { key: { _id: 1 }, unique: true } }), 'CommandNotSupported', /clusteredIndex/);
    await refused(db.createCollection('cap', { capped: true, size: 4096 }), 'CommandNotSupported', /capped/);
    await refused(db.createCollection('val', { validator: { name: { $type: 'string' } } }), 'CommandNotSupported', /validator/);
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).toEqual(['c']); // no ordinary collection was made in their place
  });

  it('text, geo and wildcard indexes and options that change results', async () => {
    const c = db.collection('c');
    await refused(c.createIndex({ name: 'text' }), 'CannotCreateIndex', /text/);
    await refused(c.createIndex({ loc: '2dsphere' }), 'CannotCreateIndex', /2dsphere/);
    await refused(c.createIndex({ '$**': 1 }), 'CannotCreateIndex', /wildcard/);
    await refused(c.createIndex({ name: 1 }, { hidden: true }), 'CommandNotSupported', /hidden/);
    expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    expect(await c.createIndex({ name: 'hashed' })).toBe('name_hashed');
  });
});
