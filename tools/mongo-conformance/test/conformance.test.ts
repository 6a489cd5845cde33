/**
 * MongoDB behaviour the platform relies on. Runs against the embedded engine, or unchanged
 * against a real MongoDB when MONGODB_URI is set.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Binary, Decimal128, Long, MongoClient, MongoServerError, ObjectId, type Collection, type Db } from 'mongodb';
import { createTestDatabase, type TestDatabase } from '@cw-tools/testing';

let tdb: TestDatabase;
let client: MongoClient;
let db: Db;
let n = 0;
let coll: Collection;

beforeAll(async () => {
  tdb = await createTestDatabase({ ttlMonitorIntervalMs: 200 });
  client = await MongoClient.connect(tdb.serverUri);
  db = client.db(tdb.dbName);
});
afterAll(async () => {
  await client?.close();
  await tdb?.stop();
});
beforeEach(() => {
  coll = db.collection(`c${++n}`);
});

async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(MongoServerError);
  return e as MongoServerError;
}

describe('handshake and server commands', () => {
  it('answers hello as a writable primary with a modern wire version and sessions', async () => {
    const hello = await db.admin().command({ hello: 1 });
    expect(hello.ok).toBe(1);
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(hello.logicalSessionTimeoutMinutes).toBeGreaterThan(0);
    expect(hello.maxBsonObjectSize).toBe(16 * 1024 * 1024);
  });

  it('answers ping and buildInfo', async () => {
    expect((await db.command({ ping: 1 })).ok).toBe(1);
    const info = await db.admin().command({ buildInfo: 1 });
    expect(typeof info.version).toBe('string');
  });

  it('answers an unknown command with code 59 naming the command', async () => {
    const e = await serverError(db.command({ frobnicate: 1 }));
    expect(e.code).toBe(59);
    expect(e.message).toContain('frobnicate');
  });
});

describe('reads', () => {
  it('fails a read over its maxTimeMS with code 50 (MaxTimeMSExpired), and runs it without one', async () => {
    const docs = Array.from({ length: 60_000 }, (_, i) => ({ i, title: `product number ${i} in the catalog` }));
    for (let k = 0; k < docs.length; k += 10_000) await coll.insertMany(docs.slice(k, k + 10_000));
    const e = await serverError(
      coll
        .find({ title: { $regex: 'no such words$' } })
        .maxTimeMS(1)
        .toArray(),
    );
    expect(e.code).toBe(50);
    expect(await coll.countDocuments({ title: { $regex: 'number 59999 ' } })).toBe(1);
  });

  it('finds with filter, sort, skip, limit and projection', async () => {
    await coll.insertMany([5, 3, 9, 1, 7].map((v) => ({ v, tag: v % 2 ? 'odd' : 'even', extra: 'x' })));
    const docs = await coll
      .find({ v: { $gte: 3 } }, { projection: { _id: 0, v: 1 } })
      .sort({ v: -1 })
      .skip(1)
      .limit(2)
      .toArray();
    expect(docs).toEqual([{ v: 7 }, { v: 5 }]);
  });

  it('pages through a large result with getMore and kills a cursor', async () => {
    await coll.insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
    const all = await coll.find({}, { batchSize: 40 }).sort({ i: 1 }).toArray();
    expect(all.map((d) => d.i)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    const openCursors = async () => Number((await db.admin().command({ serverStatus: 1 })).metrics.cursor.open.total);
    const before = await openCursors();
    const opened = await db.command({ find: coll.collectionName, batchSize: 10 });
    const id = opened.cursor.id;
    expect(String(id)).not.toBe('0');
    expect(await openCursors()).toBe(before + 1); // serverStatus counts it (metrics.cursor.open.total)
    const killed = await db.command({ killCursors: coll.collectionName, cursors: [id] });
    expect(await openCursors()).toBe(before);
    expect(killed.cursorsKilled.map(String)).toEqual([String(id)]);
    const e = await serverError(db.command({ getMore: id, collection: coll.collectionName }));
    expect(e.code).toBe(43);
  });

  it('reads a cursor as it goes: between batches, a document inserted ahead is returned, one deleted ahead is not, none twice', async () => {
    await coll.createIndex({ k: 1 });
    await coll.insertMany(Array.from({ length: 200 }, (_, i) => ({ k: i * 2, shelf: 'a' })));
    const byIndex = coll.find({ k: { $gte: 0 } }, { batchSize: 20 }).sort({ k: 1 });
    const natural = coll.find({ shelf: 'a' }, { batchSize: 20 });
    const first = [(await byIndex.next())!.k, (await natural.next())!.k];
    expect(first).toEqual([0, 0]);
    await coll.insertOne({ k: 301, shelf: 'a' });
    await coll.deleteOne({ k: 350 });
    const rest = { byIndex: (await byIndex.toArray()).map((d) => d.k as number), natural: (await natural.toArray()).map((d) => d.k as number) };
    const expected = [...Array.from({ length: 200 }, (_, i) => i * 2).filter((k) => k !== 350), 301].sort((a, b) => a - b);
    expect([0, ...rest.byIndex]).toEqual(expected);
    // Natural order: the new document comes after every stored one.
    expect([0, ...rest.natural]).toEqual([...expected.filter((k) => k !== 301), 301]);
  });

  it('returns the _id first in stored documents', async () => {
    await coll.insertOne({ a: 1, _id: 'x' } as never);
    const raw = await coll.findOne({});
    expect(Object.keys(raw!)).toEqual(['_id', 'a']);
  });

  it('matches null against missing fields and null, and $ne null excludes both', async () => {
    await coll.insertMany([{ k: 1, a: null }, { k: 2 }, { k: 3, a: 0 }]);
    const ks = async (f: object) => (await coll.find(f).sort({ k: 1 }).toArray()).map((d) => d.k);
    expect(await ks({ a: null })).toEqual([1, 2]);
    expect(await ks({ a: { $ne: null } })).toEqual([3]);
    expect(await ks({ a: { $in: [null, 0] } })).toEqual([1, 2, 3]);
    expect(await ks({ a: { $exists: false } })).toEqual([2]);
  });

  it('compares only within a type: $gt on a number never matches a string', async () => {
    await coll.insertMany([
      { k: 1, a: 5 },
      { k: 2, a: '7' },
      { k: 3, a: 10 },
    ]);
    expect(
      (
        await coll
          .find({ a: { $gt: 4 } })
          .sort({ k: 1 })
          .toArray()
      ).map((d) => d.k),
    ).toEqual([1, 3]);
  });

  it('matches arrays by any element and by the whole array', async () => {
    await coll.insertMany([
      { k: 1, t: ['a', 'b'] },
      { k: 2, t: ['c'] },
      { k: 3, t: 'a' },
    ]);
    expect((await coll.find({ t: 'a' }).sort({ k: 1 }).toArray()).map((d) => d.k)).toEqual([1, 3]);
    expect((await coll.find({ t: ['c'] }).toArray()).map((d) => d.k)).toEqual([2]);
  });

  it('sorts mixed types in BSON order: null, numbers, strings, objects, arrays, binary, ObjectId, booleans, dates', async () => {
    const values = [new Date(0), true, new ObjectId('000000000000000000000001'), new Binary(Buffer.from('x')), [9], { a: 1 }, 'str', 42, null];
    await coll.insertMany([...values].reverse().map((v, i) => ({ i, v })));
    const sorted = await coll.find({}).sort({ v: 1, i: 1 }).toArray();
    const kinds = sorted.map((d) => (d.v === null ? 'null' : Array.isArray(d.v) ? 'array' : d.v instanceof Date ? 'date' : (d.v?._bsontype ?? typeof d.v)));
    // An array sorts by its smallest element (9), which places it among the numbers.
    expect(kinds).toEqual(['null', 'array', 'number', 'string', 'object', 'Binary', 'ObjectId', 'boolean', 'date']);
  });

  it('counts and lists distinct values, unwinding arrays', async () => {
    await coll.insertMany([{ t: ['a', 'b'] }, { t: 'b' }, { t: 'c' }, {}]);
    expect(await coll.countDocuments({ t: 'b' })).toBe(2);
    expect(await coll.estimatedDocumentCount()).toBe(4);
    expect((await coll.distinct('t')).sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('exact numbers', () => {
  it('compares and sorts Decimal128 by value, not by text', async () => {
    await coll.insertMany(['10.50', '9.99', '100', '0.5'].map((p) => ({ p: Decimal128.fromString(p) })));
    const over10 = await coll
      .find({ p: { $gt: Decimal128.fromString('10') } })
      .sort({ p: 1 })
      .toArray();
    expect(over10.map((d) => d.p.toString())).toEqual(['10.50', '100']);
    const all = await coll.find({}).sort({ p: -1 }).toArray();
    expect(all.map((d) => d.p.toString())).toEqual(['100', '10.50', '9.99', '0.5']);
  });

  it('compares Decimal128 with plain numbers numerically', async () => {
    await coll.insertMany([{ p: Decimal128.fromString('19.99') }, { p: 25 }, { p: Decimal128.fromString('30.00') }]);
    const docs = await coll
      .find({ p: { $gte: 20, $lte: Decimal128.fromString('30') } })
      .sort({ p: 1 })
      .toArray();
    expect(docs.map((d) => String(d.p))).toEqual(['25', '30.00']);
    expect(await coll.countDocuments({ p: 30 })).toBe(1);
  });

  it('sums Decimal128 exactly in $group', async () => {
    await coll.insertMany(Array.from({ length: 10 }, () => ({ c: Decimal128.fromString('0.10'), cur: 'EUR' })));
    const [row] = await coll.aggregate([{ $group: { _id: '$cur', total: { $sum: '$c' } } }]).toArray();
    expect(row.total).toBeInstanceOf(Decimal128);
    expect(Number(row.total.toString())).toBe(1);
    expect(row.total.toString()).toMatch(/^1\.0+$/);
  });

  it('keeps Long values above 2^53 exact in storage, comparison, sort and sum', async () => {
    const big = Long.fromString('9007199254740993');
    await coll.insertMany([{ n: big }, { n: Long.fromString('9007199254740992') }, { n: Long.fromNumber(1) }]);
    const found = await coll.findOne({ n: { $gt: Long.fromString('9007199254740992') } }, { promoteLongs: false });
    expect(found!.n.toString()).toBe('9007199254740993');
    const sorted = await coll.find({}, { promoteLongs: false }).sort({ n: -1 }).toArray();
    expect(sorted.map((d) => d.n.toString())).toEqual(['9007199254740993', '9007199254740992', '1']);
    const [sum] = await coll.aggregate([{ $group: { _id: null, s: { $sum: '$n' } } }], { promoteLongs: false }).toArray();
    expect(sum.s.toString()).toBe('18014398509481986');
  });

  it('increments Decimal128 fields exactly', async () => {
    await coll.insertOne({ _id: 'w' as never, bal: Decimal128.fromString('0.1') });
    for (let i = 0; i < 3; i++) await coll.updateOne({ _id: 'w' as never }, { $inc: { bal: Decimal128.fromString('0.2') } });
    const doc = await coll.findOne({ _id: 'w' as never });
    expect(doc!.bal.toString()).toBe('0.7');
  });
});

describe('updates and upserts', () => {
  it('applies $set, $inc, $push, $unset and reports matched and modified counts', async () => {
    await coll.insertMany([
      { k: 1, n: 1, arr: [] },
      { k: 2, n: 1, arr: [] },
    ]);
    const r = await coll.updateMany({}, { $inc: { n: 2 }, $push: { arr: 'x' }, $set: { s: 'y' } } as never);
    expect(r.matchedCount).toBe(2);
    expect(r.modifiedCount).toBe(2);
    const same = await coll.updateOne({ k: 1 }, { $set: { s: 'y' } });
    expect(same.matchedCount).toBe(1);
    expect(same.modifiedCount).toBe(0);
    await coll.updateOne({ k: 2 }, { $unset: { s: '' } });
    const docs = await coll
      .find({}, { projection: { _id: 0 } })
      .sort({ k: 1 })
      .toArray();
    expect(docs).toEqual([
      { k: 1, n: 3, arr: ['x'], s: 'y' },
      { k: 2, n: 3, arr: ['x'] },
    ]);
  });

  it('pushes and pulls array elements: values, $each, modifiers, strings and conditions', async () => {
    await coll.insertOne({ _id: 1 as never, tags: ['a', 'b', 'a', 7], nested: { list: ['x'] }, ids: ['t1', 't2', 't3'] });
    await coll.updateOne({ _id: 1 as never }, {
      $push: { 'nested.list': { $each: ['y', { z: 1 }] }, fresh: 'first', 'made.deep': { v: 1 } },
      $pull: { tags: 'a' },
      $pullAll: { ids: ['t1', 't3', 'absent'] },
    } as never);
    expect(await coll.findOne({ _id: 1 as never })).toEqual({
      _id: 1,
      tags: ['b', 7],
      nested: { list: ['x', 'y', { z: 1 }] },
      ids: ['t2'],
      fresh: ['first'],
      made: { deep: [{ v: 1 }] },
    });
    // Pulling from a missing field changes nothing and creates nothing; an empty $each creates the array.
    const none = await coll.updateOne({ _id: 1 as never }, { $pull: { 'gone.list': 'x' }, $pullAll: { absent: ['x'] } } as never);
    expect(none.modifiedCount).toBe(0);
    await coll.updateOne({ _id: 1 as never }, { $push: { empty: { $each: [] } } } as never);
    // Modifiers and conditions still apply.
    await coll.updateOne({ _id: 1 as never }, { $push: { tags: { $each: ['c', 'd'], $slice: -2 } }, $pull: { 'nested.list': { z: 1 } } } as never);
    expect(await coll.findOne({ _id: 1 as never }, { projection: { tags: 1, nested: 1, empty: 1 } })).toEqual({
      _id: 1,
      tags: ['c', 'd'],
      nested: { list: ['x', 'y'] },
      empty: [],
    });
    // Pushing to a field that is not an array is refused, and the document is left as it was.
    await coll.updateOne({ _id: 1 as never }, { $set: { fresh: 'now a string' } });
    const refused = await serverError(coll.updateOne({ _id: 1 as never }, { $push: { fresh: 'x', 'nested.list': 'w' } } as never));
    expect(refused.message).toMatch(/array/i);
    await serverError(coll.updateOne({ _id: 1 as never }, { $pull: { fresh: 'x' } } as never));
    expect((await coll.findOne({ _id: 1 as never }))!.nested).toEqual({ list: ['x', 'y'] });
  });

  it('a guarded upsert pushes its id once: the filter misses when the array holds it, and the _id then conflicts', async () => {
    const guarded = (ids: string[]) =>
      coll.updateOne({ _id: 'cell' as never, txns: { $nin: ids } }, { $inc: { n: 1 }, $push: { txns: { $each: ids } } } as never, { upsert: true });
    await guarded(['t1', 't2']);
    expect(await coll.findOne({ _id: 'cell' as never })).toEqual({ _id: 'cell', n: 1, txns: ['t1', 't2'] });
    expect((await serverError(guarded(['t2']))).code).toBe(11000);
    await guarded(['t3']);
    await coll.updateOne({ _id: 'cell' as never }, { $pullAll: { txns: ['t1', 't3'] } } as never);
    expect(await coll.findOne({ _id: 'cell' as never })).toEqual({ _id: 'cell', n: 2, txns: ['t2'] });
  });

  it('applies every operator of an update whose $set changes a field its filter names', async () => {
    await coll.insertOne({ _id: 1 as never, status: 'pending', events: ['created'], n: 1 });
    const r = await coll.updateOne({ _id: 1 as never, status: 'pending' }, {
      $set: { status: 'approved', 'meta.by': 'm' },
      $min: { since: new Date(5) },
      $push: { events: 'approved' },
      $inc: { n: 1, 'meta.count': 2 },
      $unset: { gone: '' },
    } as never);
    expect(r.modifiedCount).toBe(1);
    expect(await coll.findOne({ _id: 1 as never })).toEqual({
      _id: 1,
      status: 'approved',
      events: ['created', 'approved'],
      n: 2,
      meta: { by: 'm', count: 2 },
      since: new Date(5),
    });
    // A positional update still resolves its `$` against the filter.
    await coll.insertOne({
      _id: 2 as never,
      items: [
        { sku: 'a', q: 1 },
        { sku: 'b', q: 1 },
      ],
      state: 'open',
    });
    await coll.updateOne({ _id: 2 as never, 'items.sku': 'b', state: 'open' }, { $set: { 'items.$.q': 9, state: 'done' } });
    expect(await coll.findOne({ _id: 2 as never })).toEqual({
      _id: 2,
      items: [
        { sku: 'a', q: 1 },
        { sku: 'b', q: 9 },
      ],
      state: 'done',
    });
  });

  it('updates array elements selected by arrayFilters', async () => {
    await coll.insertOne({
      _id: 1 as never,
      items: [
        { sku: 'a', q: 1 },
        { sku: 'b', q: 1 },
      ],
    });
    await coll.updateOne({ _id: 1 as never }, { $inc: { 'items.$[it].q': 5 } }, { arrayFilters: [{ 'it.sku': 'b' }] });
    expect((await coll.findOne({}))!.items).toEqual([
      { sku: 'a', q: 1 },
      { sku: 'b', q: 6 },
    ]);
  });

  it('applies aggregation-pipeline updates', async () => {
    await coll.insertOne({ a: 2, b: 3 });
    await coll.updateOne({}, [{ $set: { c: { $add: ['$a', '$b'] } } }]);
    expect((await coll.findOne({}))!.c).toBe(5);
  });

  it('replaces a document keeping its _id', async () => {
    const { insertedId } = await coll.insertOne({ a: 1, b: 2 });
    await coll.replaceOne({ _id: insertedId }, { z: 9 });
    expect(await coll.findOne({ _id: insertedId })).toEqual({ _id: insertedId, z: 9 });
  });

  it('applies $setOnInsert only when an upsert inserts, seeding from the filter', async () => {
    const first = await coll.updateOne({ sku: 'A', $and: [{ country: 'DE' }] }, { $set: { price: 1 }, $setOnInsert: { created: 'first' } }, { upsert: true });
    expect(first.upsertedCount).toBe(1);
    await coll.updateOne({ sku: 'A', country: 'DE' }, { $set: { price: 2 }, $setOnInsert: { created: 'second' } }, { upsert: true });
    const docs = await coll.find({}, { projection: { _id: 0 } }).toArray();
    expect(docs).toEqual([{ sku: 'A', country: 'DE', price: 2, created: 'first' }]);
  });

  it('findOneAndUpdate returns the document before or after, and upserts', async () => {
    await coll.insertOne({ k: 'a', n: 1 });
    const before = await coll.findOneAndUpdate({ k: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'before' });
    expect(before!.n).toBe(1);
    const after = await coll.findOneAndUpdate({ k: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'after' });
    expect(after!.n).toBe(3);
    const up = await coll.findOneAndUpdate({ k: 'b' }, { $set: { n: 7 } }, { upsert: true, returnDocument: 'after' });
    expect(up).toMatchObject({ k: 'b', n: 7 });
    const removed = await coll.findOneAndDelete({ k: 'a' });
    expect(removed!.k).toBe('a');
    expect(await coll.countDocuments()).toBe(1);
  });

  it('refuses conflicting update paths with code 40', async () => {
    await coll.insertOne({ a: 1 });
    const e = await serverError(coll.updateOne({}, { $set: { a: 2 }, $inc: { a: 1 } }));
    expect(e.code).toBe(40);
  });

  it('refuses an _id holding $-prefixed field names with code 52, on insert, replacement and upsert', async () => {
    for (const write of [
      () => coll.insertOne({ _id: { $a: 1 } as never }),
      () => coll.insertOne({ _id: { ok: { $b: 1 } } as never }),
      () => coll.updateOne({ k: 'u' }, { $set: { _id: { $c: 1 } } } as never, { upsert: true }),
    ]) {
      expect((await serverError(write())).code).toBe(52);
    }
    expect(await coll.countDocuments({})).toBe(0);
  });

  it('refuses sort on an update statement before 8.0 (unknown field 40415), and applies nothing', async () => {
    await coll.insertMany([
      { k: 1, n: 2 },
      { k: 1, n: 1 },
    ]);
    const major = Number((await db.admin().command({ buildInfo: 1 })).versionArray[0]);
    const run = db.command({ update: coll.collectionName, updates: [{ q: { k: 1 }, u: { $set: { hit: true } }, sort: { n: 1 } }] });
    if (major >= 8) {
      await run;
      expect((await coll.findOne({ hit: true }))!.n).toBe(1);
    } else {
      const reply = await run.then(
        (r) => r,
        (e: unknown) => e as MongoServerError,
      );
      // A 7.0 server answers the unknown field as a command error.
      expect((reply as MongoServerError).code).toBe(40415);
      expect(await coll.countDocuments({ hit: true })).toBe(0);
    }
  });

  it('refuses changing _id with code 66', async () => {
    await coll.insertOne({ _id: 'a' as never });
    const e = await serverError(coll.updateOne({ _id: 'a' as never }, { $set: { _id: 'b' } } as never));
    expect(e.code).toBe(66);
  });

  it('deletes one or many', async () => {
    await coll.insertMany([{ a: 1 }, { a: 1 }, { a: 2 }]);
    expect((await coll.deleteOne({ a: 1 })).deletedCount).toBe(1);
    expect((await coll.deleteMany({})).deletedCount).toBe(2);
  });
});

interface Explained {
  queryPlanner: { winningPlan: Record<string, unknown> };
  executionStats?: { nReturned: number; totalDocsExamined: number; totalKeysExamined: number };
  stages?: Array<{ $cursor: Explained }>;
}

/** Every stage of an explained plan, outermost first (classic trees, and 7.0's `queryPlan` wrapper). */
function planStages(node: Record<string, unknown> | undefined): Array<Record<string, unknown>> {
  if (!node) return [];
  if (node.queryPlan) return planStages(node.queryPlan as Record<string, unknown>);
  const kids = [...(node.inputStage ? [node.inputStage] : []), ...((node.inputStages as unknown[]) ?? [])] as Array<Record<string, unknown>>;
  return [node, ...kids.flatMap(planStages)];
}

describe('explain', () => {
  it('shows an index-backed sorted page as IXSCAN with no SORT, reading no more than the page', async () => {
    await coll.createIndex({ p: 1, t: -1, _id: 1 });
    await coll.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, p: i % 2 ? 'a' : 'b', t: new Date(1_700_000_000_000 + i * 1000), x: i })) as never[]);
    const page = (await coll.find({ p: 'a' }).sort({ t: -1, _id: 1 }).limit(10).explain('executionStats')) as Explained;
    const stages = planStages(page.queryPlanner.winningPlan);
    expect(stages.map((st) => st.stage)).toContain('IXSCAN');
    expect(stages.find((st) => st.stage === 'IXSCAN')!.indexName).toBe('p_1_t_-1__id_1');
    expect(stages.map((st) => st.stage)).not.toContain('SORT');
    expect(page.executionStats!.nReturned).toBe(10);
    expect(page.executionStats!.totalDocsExamined).toBeLessThanOrEqual(10);
    expect(page.executionStats!.totalKeysExamined).toBeLessThanOrEqual(11);

    // No index on x: a collection scan reading every document; a sort no index serves: SORT.
    const scan = (await coll.find({ x: { $gte: 40 } }).explain('executionStats')) as Explained;
    expect(planStages(scan.queryPlanner.winningPlan).map((st) => st.stage)).toContain('COLLSCAN');
    expect(scan.executionStats).toMatchObject({ nReturned: 10, totalDocsExamined: 50 });
    const sorted = (await coll.find({ p: 'a' }).sort({ x: 1 }).explain('queryPlanner')) as Explained;
    expect(planStages(sorted.queryPlanner.winningPlan).map((st) => st.stage)).toContain('SORT');
    expect(sorted.executionStats).toBeUndefined();
  });

  it('shows the index an aggregate’s leading $match uses', async () => {
    await coll.createIndex({ p: 1 });
    await coll.insertMany([
      { p: 'a', n: 1 },
      { p: 'b', n: 2 },
      { p: 'a', n: 3 },
    ]);
    const r = (await coll.aggregate([{ $match: { p: 'a' } }, { $group: { _id: '$p', n: { $sum: '$n' } } }]).explain('executionStats')) as Explained;
    const cursor = r.stages ? r.stages[0].$cursor : r;
    const stages = planStages(cursor.queryPlanner.winningPlan);
    expect(stages.find((st) => st.stage === 'IXSCAN')?.indexName).toBe('p_1');
  });
});

describe('let variables', () => {
  it('are read as $$name in find, aggregate, update (filter and pipeline), delete and findAndModify', async () => {
    await coll.insertMany([
      { _id: 1, name: 'ana', n: 1 },
      { _id: 2, name: 'bo', n: 2 },
    ] as never[]);
    const vars = { who: 'ana', step: 10 };
    const byName = { $expr: { $eq: ['$name', '$$who'] } };
    expect(await coll.find(byName, { let: vars }).toArray()).toEqual([{ _id: 1, name: 'ana', n: 1 }]);
    expect(await coll.aggregate([{ $match: byName }, { $project: { _id: 1, next: { $add: ['$n', '$$step'] } } }], { let: vars }).toArray()).toEqual([
      { _id: 1, next: 11 },
    ]);
    await coll.updateOne(byName, [{ $set: { n: { $add: ['$n', '$$step'] } } }], { let: vars });
    expect((await coll.findOne({ _id: 1 as never }))!.n).toBe(11);
    const found = await coll.findOneAndUpdate(byName, { $inc: { n: 1 } }, { let: vars, returnDocument: 'after' });
    expect(found).toMatchObject({ _id: 1, n: 12 });
    expect((await coll.deleteMany({ $expr: { $eq: ['$name', '$$gone'] } }, { let: { gone: 'bo' } })).deletedCount).toBe(1);
    expect(await coll.countDocuments({})).toBe(1);
  });
});

describe('aggregation stages that write, and collMod', () => {
  it('$out replaces the target with the pipeline output, keeping its indexes, and answers an empty cursor', async () => {
    await coll.insertMany([
      { k: 'a', n: 1 },
      { k: 'a', n: 2 },
      { k: 'b', n: 5 },
    ]);
    const target = db.collection(`${coll.collectionName}_out`);
    await target.insertOne({ _id: 'stale' as never });
    await target.createIndex({ total: -1 });
    const res = await coll.aggregate([{ $group: { _id: '$k', total: { $sum: '$n' } } }, { $out: target.collectionName }]).toArray();
    expect(res).toEqual([]);
    expect(await target.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', total: 3 },
      { _id: 'b', total: 5 },
    ]);
    expect((await target.listIndexes().toArray()).map((i) => i.name)).toContain('total_-1');
    expect((await serverError(coll.aggregate([{ $out: target.collectionName }, { $match: {} }]).toArray())).code).toBe(40601);
  });

  it('$merge merges, replaces, keeps, fails and runs a pipeline on matches; inserts, discards or fails the rest', async () => {
    const target = db.collection(`${coll.collectionName}_stats`);
    await target.insertMany([
      { _id: 'a', total: 1, note: 'kept' },
      { _id: 'z', total: 9 },
    ] as never[]);
    await coll.insertMany([
      { k: 'a', n: 2 },
      { k: 'b', n: 3 },
    ]);
    const group = { $group: { _id: '$k', total: { $sum: '$n' } } };
    await coll.aggregate([group, { $merge: { into: target.collectionName } }]).toArray(); // merge + insert
    expect(await target.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', total: 2, note: 'kept' },
      { _id: 'b', total: 3 },
      { _id: 'z', total: 9 },
    ]);
    await coll.aggregate([group, { $merge: { into: target.collectionName, whenMatched: 'replace', whenNotMatched: 'discard' } }]).toArray();
    expect(await target.findOne({ _id: 'a' as never })).toEqual({ _id: 'a', total: 2 });
    await coll.insertOne({ k: 'c', n: 1 });
    await coll.aggregate([group, { $merge: { into: target.collectionName, whenMatched: 'keepExisting', whenNotMatched: 'discard' } }]).toArray();
    expect(await target.countDocuments({ _id: 'c' as never })).toBe(0);
    await coll
      .aggregate([
        group,
        { $merge: { into: target.collectionName, whenMatched: [{ $set: { total: { $add: ['$total', '$$new.total'] } } }], whenNotMatched: 'insert' } },
      ])
      .toArray();
    expect(await target.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', total: 4 },
      { _id: 'b', total: 6 },
      { _id: 'c', total: 1 },
      { _id: 'z', total: 9 },
    ]);
    expect((await serverError(coll.aggregate([group, { $merge: { into: target.collectionName, whenMatched: 'fail' } }]).toArray())).code).toBe(11000);
    await coll.insertOne({ k: 'new', n: 1 });
    expect(
      (await serverError(coll.aggregate([group, { $merge: { into: target.collectionName, whenMatched: 'keepExisting', whenNotMatched: 'fail' } }]).toArray()))
        .code,
    ).toBe(13113);
    // on fields other than _id need a unique index on them.
    expect(
      (
        await serverError(
          coll.aggregate([group, { $project: { _id: 0, k: '$_id', total: 1 } }, { $merge: { into: target.collectionName, on: 'k' } }]).toArray(),
        )
      ).code,
    ).toBe(51183);
  });

  it('collMod changes a TTL index in place; documents then expire by the new value', { timeout: 120_000 }, async () => {
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
    await coll.insertOne({ at: new Date(Date.now() - 60_000) });
    const r = await db.command({ collMod: coll.collectionName, index: { keyPattern: { at: 1 }, expireAfterSeconds: 10 } });
    expect(r).toMatchObject({ expireAfterSeconds_old: 3600, expireAfterSeconds_new: 10, ok: 1 });
    expect((await coll.listIndexes().toArray()).find((i) => i.name === 'at_1')!.expireAfterSeconds).toBe(10);
    // The TTL monitor (every 200 ms here; 60 s on MongoDB) removes the document it now covers.
    await vi.waitFor(async () => expect(await coll.countDocuments({})).toBe(0), { timeout: 90_000, interval: 100 });
  });
});

describe('indexes and unique constraints', () => {
  it('rejects a second document with the same _id (11000) and keeps the first unchanged', async () => {
    await coll.insertOne({ _id: 'k1' as never, v: 1 });
    const e = await serverError(coll.insertOne({ _id: 'k1' as never, v: 2 }));
    expect(e.code).toBe(11000);
    expect(e.keyPattern).toEqual({ _id: 1 });
    const bulk = await serverError(coll.insertMany([{ _id: 'k2' as never }, { _id: 'k1' as never }, { _id: 'k3' as never }], { ordered: false }));
    expect(bulk.code).toBe(11000);
    expect(
      await coll
        .find({}, { projection: { _id: 1, v: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([{ _id: 'k1', v: 1 }, { _id: 'k2' }, { _id: 'k3' }]);
  });

  it('keeps apart _ids of different types that print alike: each found, replaced and deleted alone, a duplicate refused', async () => {
    const oid = new ObjectId();
    const ids: unknown[] = [5, '5', '3:5e-0', 'abc', '4:abc', '', '1', oid, oid.toHexString(), `8:${oid.toHexString()}`];
    await coll.insertMany(ids.map((_id, i) => ({ _id: _id as never, i })));
    await coll.createIndex({ i: 1 });
    for (const [i, _id] of ids.entries()) {
      expect(await coll.findOne({ _id: _id as never })).toEqual({ _id, i });
      expect(await coll.find({ i, _id: _id as never }).toArray()).toEqual([{ _id, i }]);
      expect((await serverError(coll.insertOne({ _id: _id as never, i: -1 }))).code).toBe(11000);
    }
    await coll.replaceOne({ _id: 'abc' as never }, { i: 100 });
    expect(await coll.deleteOne({ _id: '4:abc' as never })).toMatchObject({ deletedCount: 1 });
    expect(await coll.deleteOne({ _id: 5 as never })).toMatchObject({ deletedCount: 1 });
    expect(await coll.findOne({ _id: 'abc' as never })).toEqual({ _id: 'abc', i: 100 });
    expect(await coll.countDocuments({ i: { $gte: 0 } })).toBe(ids.length - 2);
    expect(await coll.countDocuments({ _id: { $in: ['5', '3:5e-0', 'abc'] as never[] } })).toBe(3);
  });

  it('rejects a duplicate on a unique index with code 11000, keyPattern and keyValue', async () => {
    await coll.createIndex({ email: 1 }, { unique: true });
    await coll.insertOne({ email: 'a@x' });
    const e = await serverError(coll.insertOne({ email: 'a@x' }));
    expect(e.code).toBe(11000);
    expect(e.keyPattern).toEqual({ email: 1 });
    expect(e.keyValue).toEqual({ email: 'a@x' });
  });

  it('enforces uniqueness on update and findAndModify and leaves the document unchanged', async () => {
    await coll.createIndex({ email: 1 }, { unique: true });
    await coll.insertMany([{ email: 'a' }, { email: 'b' }]);
    expect((await serverError(coll.updateOne({ email: 'b' }, { $set: { email: 'a' } }))).code).toBe(11000);
    expect((await serverError(coll.findOneAndUpdate({ email: 'b' }, { $set: { email: 'a' } }))).code).toBe(11000);
    expect((await coll.find({}).sort({ email: 1 }).toArray()).map((d) => d.email)).toEqual(['a', 'b']);
  });

  it('enforces compound unique keys on the combination only', async () => {
    await coll.createIndex({ pub: 1, code: 1 }, { unique: true });
    await coll.insertMany([
      { pub: 1, code: 'x' },
      { pub: 2, code: 'x' },
    ]);
    expect((await serverError(coll.insertOne({ pub: 1, code: 'x' }))).code).toBe(11000);
  });

  it('treats missing fields as null on a unique index unless it is sparse', async () => {
    await coll.createIndex({ u: 1 }, { unique: true });
    await coll.insertOne({ k: 1 });
    expect((await serverError(coll.insertOne({ k: 2 }))).code).toBe(11000);
    const sparse = db.collection(`${coll.collectionName}_sparse`);
    await sparse.createIndex({ u: 1 }, { unique: true, sparse: true });
    await sparse.insertMany([{ k: 1 }, { k: 2 }, { u: 1 }]);
    expect((await serverError(sparse.insertOne({ u: 1 }))).code).toBe(11000);
  });

  it('enforces a partial unique index only on documents matching its filter', async () => {
    await coll.createIndex({ key: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await coll.insertMany([
      { key: 'k', active: false },
      { key: 'k', active: false },
      { key: 'k', active: true },
    ]);
    expect((await serverError(coll.insertOne({ key: 'k', active: true }))).code).toBe(11000);
  });

  it('continues an unordered bulk write past errors and stops an ordered one', async () => {
    await coll.createIndex({ k: 1 }, { unique: true });
    const unordered = await coll.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }], { ordered: false }).catch((e) => e);
    expect(unordered.code).toBe(11000);
    expect(unordered.writeErrors.length ?? unordered.writeErrors).toBeTruthy();
    expect(await coll.countDocuments()).toBe(2);
    const ordered = await coll.insertMany([{ k: 3 }, { k: 3 }, { k: 4 }], { ordered: true }).catch((e) => e);
    expect(ordered.code).toBe(11000);
    expect(await coll.countDocuments({ k: { $in: [3, 4] } })).toBe(1);
  });

  it('refuses to build a unique index over existing duplicates', async () => {
    await coll.insertMany([{ a: 1 }, { a: 1 }]);
    expect((await serverError(coll.createIndex({ a: 1 }, { unique: true }))).code).toBe(11000);
  });

  it('lists and drops indexes', async () => {
    await coll.createIndex({ a: 1 }, { name: 'a_idx' });
    await coll.createIndex({ b: -1, c: 1 });
    expect((await coll.listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'a_idx', 'b_-1_c_1']);
    await coll.dropIndex('a_idx');
    expect((await coll.listIndexes().toArray()).map((i) => i.name).sort()).toEqual(['_id_', 'b_-1_c_1']);
  });

  it('removes documents past a TTL index expiry', async () => {
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    await coll.insertMany([
      { k: 'old', at: new Date(Date.now() - 60_000) },
      { k: 'new', at: new Date(Date.now() + 3_600_000) },
    ]);
    await vi.waitFor(async () => expect(await coll.countDocuments({ k: 'old' })).toBe(0), { timeout: tdb.external ? 130_000 : 5_000, interval: 100 });
    expect(await coll.countDocuments({ k: 'new' })).toBe(1);
  }, 140_000);
});

describe('aggregation', () => {
  it('groups by day with $dateToString and $dateTrunc', async () => {
    await coll.insertMany([
      { at: new Date('2026-01-01T10:00:00Z'), v: 1 },
      { at: new Date('2026-01-01T23:00:00Z'), v: 2 },
      { at: new Date('2026-01-02T01:00:00Z'), v: 4 },
    ]);
    const byDay = await coll
      .aggregate([{ $group: { _id: { $dateToString: { date: '$at', format: '%Y-%m-%d' } }, v: { $sum: '$v' } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(byDay).toEqual([
      { _id: '2026-01-01', v: 3 },
      { _id: '2026-01-02', v: 4 },
    ]);
    const trunc = await coll.aggregate([{ $group: { _id: { $dateTrunc: { date: '$at', unit: 'day' } }, n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
    expect(trunc.map((r) => [r._id.toISOString(), r.n])).toEqual([
      ['2026-01-01T00:00:00.000Z', 2],
      ['2026-01-02T00:00:00.000Z', 1],
    ]);
  });

  it('groups by a compound key of fields and days (missing fields as null) with exact Decimal128 sums and counts', async () => {
    await coll.insertMany([
      { at: new Date('2026-03-01T10:00:00Z'), s: 'approved', cur: 'EUR', c: Decimal128.fromString('0.10') },
      { at: new Date('2026-03-01T11:00:00Z'), s: 'approved', cur: 'EUR', c: Decimal128.fromString('0.20') },
      { at: new Date('2026-03-01T12:00:00Z'), cur: 'EUR', c: Decimal128.fromString('1.05') },
      { at: new Date('2026-03-02T00:00:00Z'), s: 'approved', cur: 'GBP', c: Decimal128.fromString('-2.5') },
    ]);
    const rows = await coll
      .aggregate([
        { $match: { cur: { $in: ['EUR', 'GBP'] } } },
        { $group: { _id: { d: { $dateToString: { format: '%Y-%m-%d', date: '$at' } }, s: '$s', cur: '$cur' }, n: { $sum: 1 }, c: { $sum: '$c' } } },
        { $sort: { '_id.d': 1, '_id.cur': 1, n: -1 } },
      ])
      .toArray();
    expect(rows.map((r) => [r._id.d, r._id.s, r._id.cur, r.n, r.c.toString()])).toEqual([
      ['2026-03-01', 'approved', 'EUR', 2, '0.30'],
      ['2026-03-01', null, 'EUR', 1, '1.05'],
      ['2026-03-02', 'approved', 'GBP', 1, '-2.5'],
    ]);
  });

  it('runs $facet, $lookup, $match, $project and $count', async () => {
    const other = db.collection(`${coll.collectionName}_programs`);
    await other.insertMany([
      { _id: 1 as never, name: 'Shoes' },
      { _id: 2 as never, name: 'Books' },
    ]);
    await coll.insertMany([
      { program: 1, s: 'approved' },
      { program: 1, s: 'pending' },
      { program: 2, s: 'approved' },
    ]);
    const [out] = await coll
      .aggregate([
        { $match: { s: 'approved' } },
        { $lookup: { from: other.collectionName, localField: 'program', foreignField: '_id', as: 'p' } },
        { $project: { _id: 0, name: { $arrayElemAt: ['$p.name', 0] } } },
        { $facet: { names: [{ $sort: { name: 1 } }], total: [{ $count: 'n' }] } },
      ])
      .toArray();
    expect(out.names).toEqual([{ name: 'Books' }, { name: 'Shoes' }]);
    expect(out.total).toEqual([{ n: 2 }]);
  });
});

describe('isolation and catalog commands', () => {
  it('keeps databases and collections apart', async () => {
    const otherDb = client.db(`${tdb.dbName}_other`);
    await coll.insertOne({ a: 1 });
    await otherDb.collection(coll.collectionName).insertOne({ a: 2 });
    expect(await coll.countDocuments()).toBe(1);
    expect((await otherDb.collection(coll.collectionName).findOne({}))!.a).toBe(2);
    expect(await db.collection(`${coll.collectionName}_x`).countDocuments()).toBe(0);
    await otherDb.dropDatabase();
    expect(await coll.countDocuments()).toBe(1);
  });

  it('creates, lists and drops collections', async () => {
    await db.createCollection(`${coll.collectionName}_made`);
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).toContain(`${coll.collectionName}_made`);
    expect((await serverError(db.createCollection(`${coll.collectionName}_made`))).code).toBe(48);
    await db.collection(`${coll.collectionName}_made`).drop();
    const after = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(after).not.toContain(`${coll.collectionName}_made`);
  });
});

describe('transactions', () => {
  it('never applies a transaction partially: it commits atomically or is refused with nothing written', async () => {
    await coll.insertOne({ seed: true });
    const session = client.startSession();
    let refused = false;
    try {
      await session.withTransaction(async () => {
        await coll.insertOne({ t: 1 }, { session });
        await coll.insertOne({ t: 2 }, { session });
      });
    } catch {
      refused = true;
    } finally {
      await session.endSession();
    }
    expect(await coll.countDocuments({ t: { $exists: true } })).toBe(refused ? 0 : 2);
  });
});
