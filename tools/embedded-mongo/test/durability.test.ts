import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Decimal128, Long, MongoClient, ObjectId } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine, startEmbeddedMongo, type EmbeddedMongo } from '../src/index';
import { serveEngine } from '../src/server';

const CLI = resolve(__dirname, '../src/cli.ts');
const dirs: string[] = [];
const open: Array<EmbeddedMongo | MongoClient | ChildProcess> = [];

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cw-engine-'));
  dirs.push(d);
  return d;
}

async function start(dir: string, extra: Parameters<typeof startEmbeddedMongo>[0] = {}) {
  const problems: string[] = [];
  const mongo = await startEmbeddedMongo({ dataDir: dir, log: (m) => problems.push(m), ...extra });
  const client = await MongoClient.connect(mongo.uri);
  open.push(client, mongo);
  return { mongo, client, db: client.db('app'), problems };
}

async function stop(s: { mongo: EmbeddedMongo; client: MongoClient }) {
  await s.client.close();
  await s.mongo.stop();
}

afterEach(async () => {
  for (const o of open.splice(0).reverse()) {
    if (o instanceof MongoClient) await o.close().catch(() => undefined);
    else if ('kill' in o) o.kill('SIGKILL');
    else await o.stop();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const journals = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith('journal-') && f.endsWith('.log'))
    .sort();

describe('durable embedded engine', () => {
  it('keeps documents, updates, deletes, indexes and exact values across a restart', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const users = first.db.collection('users');
    await users.createIndex({ email: 1 }, { unique: true });
    await users.insertMany([
      { _id: 1 as never, email: 'a@example.com', balance: Decimal128.fromString('10.25') },
      { _id: 2 as never, email: 'b@example.com', balance: Decimal128.fromString('0.10') },
      { _id: 3 as never, email: 'c@example.com', balance: Decimal128.fromString('7.00') },
    ]);
    await users.updateOne({ _id: 2 as never }, { $set: { email: 'b2@example.com' } });
    await users.deleteOne({ _id: 3 as never });
    await first.db.collection('dropped').insertOne({ x: 1 });
    await first.db.collection('dropped').drop();
    await stop(first);

    const second = await start(dir);
    expect(second.mongo.recovery).toMatchObject({ snapshot: null, skippedBytes: 0, problems: [] });
    const again = second.db.collection('users');
    expect(await again.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, email: 'a@example.com', balance: Decimal128.fromString('10.25') },
      { _id: 2, email: 'b2@example.com', balance: Decimal128.fromString('0.10') },
    ]);
    expect((await again.indexes()).map((i) => i.name)).toEqual(['_id_', 'email_1']);
    await expect(again.insertOne({ email: 'a@example.com' })).rejects.toMatchObject({ code: 11000 });
    expect((await second.db.listCollections().toArray()).map((c) => c.name).sort()).toEqual(['users']);
  });

  it('keeps what $out, $merge and collMod wrote across a restart', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const sales = first.db.collection('sales');
    await sales.insertMany([
      { k: 'a', n: 1 },
      { k: 'a', n: 2 },
      { k: 'b', n: 4 },
    ]);
    await sales.aggregate([{ $group: { _id: '$k', total: { $sum: '$n' } } }, { $out: 'totals' }]).toArray();
    await sales.aggregate([{ $match: { k: 'b' } }, { $group: { _id: '$k', extra: { $sum: 1 } } }, { $merge: { into: 'totals' } }]).toArray();
    await first.db.collection('totals').createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
    await first.db.command({ collMod: 'totals', index: { keyPattern: { at: 1 }, expireAfterSeconds: 60 } });
    await stop(first);

    const second = await start(dir);
    const totals = second.db.collection('totals');
    expect(await totals.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', total: 3 },
      { _id: 'b', total: 4, extra: 1 },
    ]);
    expect((await totals.indexes()).find((i) => i.name === 'at_1')!.expireAfterSeconds).toBe(60);
  });

  it('compacts into a snapshot in the background, drops covered journals, and restarts from snapshot plus newer journal', async () => {
    const dir = dataDir();
    const first = await start(dir, { compactAfterBytes: 64 * 1024 });
    const items = first.db.collection('items');
    await items.createIndex({ sku: 1 }, { unique: true });
    for (let batch = 0; batch < 20; batch++) {
      await items.insertMany(
        Array.from({ length: 100 }, (_, i) => ({ _id: batch * 100 + i, sku: `sku-${batch * 100 + i}`, text: 'x'.repeat(100) })) as never[],
      );
    }
    await first.mongo.compact();
    await items.updateOne({ _id: 5 as never }, { $set: { text: 'after the snapshot' } });
    await items.deleteOne({ _id: 6 as never });
    const files = readdirSync(dir);
    expect(files.filter((f) => f.startsWith('snapshot-'))).toHaveLength(1);
    expect(journals(dir).length).toBeLessThanOrEqual(2);
    await stop(first);

    const second = await start(dir);
    expect(second.mongo.recovery!.snapshot).not.toBeNull();
    const again = second.db.collection('items');
    expect(await again.countDocuments()).toBe(1999);
    expect(await again.findOne({ _id: 5 as never })).toMatchObject({ text: 'after the snapshot' });
    expect(await again.findOne({ _id: 6 as never })).toBeNull();
    await expect(again.insertOne({ sku: 'sku-7' })).rejects.toMatchObject({ code: 11000 });
  });

  it('restarts from a snapshot with documents read only when asked for: every indexed value type found, updated, deleted and written out again', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const c = first.db.collection('values');
    await c.createIndex({ v: 1 });
    await c.createIndex({ kind: 1, v: -1 });
    await c.createIndex({ code: 1 }, { unique: true });
    const values: Array<[string, unknown]> = [
      ['string', 'héllo'],
      ['int', 42],
      ['double', 2.5],
      ['long', Long.fromString('9007199254740993')],
      ['decimal', Decimal128.fromString('19.99')],
      ['date', new Date('2026-01-02T03:04:05.678Z')],
      ['objectId', new ObjectId('65a1b2c3d4e5f60718293a4b')],
      ['bool', true],
      ['null', null],
      ['array', [3, 'x']],
      ['object', { nested: 1 }],
    ];
    await c.insertMany(values.map(([kind, v], i) => ({ _id: `d${i}` as never, kind, v, code: `c${i}`, payload: { deep: [i, { k: kind }] } })));
    await c.insertOne({ _id: 'missing' as never, kind: 'missing', code: 'cm' });
    await first.mongo.compact();
    await stop(first);

    const second = await start(dir);
    expect(second.mongo.recovery?.snapshot).not.toBeNull();
    const d = second.db.collection('values');
    for (const [i, [kind, v]] of values.entries()) {
      const byValue = kind === 'array' ? await d.find({ v: 3 }).toArray() : await d.find({ v: v as never }).toArray();
      expect(
        byValue.map((x) => x._id),
        kind,
      ).toContain(`d${i}`);
      expect((await d.findOne({ kind, v: v as never }))?.payload, kind).toEqual({ deep: [i, { k: kind }] });
    }
    expect((await d.find({ v: null }).toArray()).map((x) => x._id).sort()).toEqual(['d8', 'missing']);
    await expect(d.insertOne({ _id: 'dup' as never, code: 'c3' })).rejects.toMatchObject({ code: 11000 });
    await d.updateOne({ _id: 'd1' as never }, { $set: { v: 43 } });
    await d.deleteOne({ _id: 'd2' as never });
    expect(await d.countDocuments({ v: 42 })).toBe(0);
    expect(await d.countDocuments({ v: 43 })).toBe(1);
    expect(await d.countDocuments({ v: 2.5 })).toBe(0);
    // Every entry read from the snapshot is found again by the document it came from: after
    // updating every value, no index holds an old key (a stale entry would be examined).
    await d.updateMany({}, { $set: { v: 'updated' } });
    for (const [kind, v] of values.filter(([k]) => k !== 'array' && k !== 'object')) {
      const plan = await d.find({ v: v as never }).explain('executionStats');
      expect(plan.executionStats.totalKeysExamined, kind).toBe(0);
    }
    // Written out again with documents never read since the restart, then read after another.
    await second.mongo.compact();
    await stop(second);
    const third = await start(dir);
    const e = third.db.collection('values');
    expect(await e.countDocuments({})).toBe(values.length);
    expect(await e.countDocuments({ v: 'updated' })).toBe(values.length);
    expect((await e.findOne({ code: 'c6' }))?.payload).toEqual({ deep: [6, { k: 'objectId' }] });
  });

  it('reports and skips a torn last journal record, keeps everything before it, and is not fatal', async () => {
    const dir = dataDir();
    const first = await start(dir);
    await first.db.collection('events').insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, n: i })) as never[]);
    await stop(first);
    const [journal] = journals(dir);
    // A crash in the middle of a record: a header promising more bytes than were written.
    const torn = Buffer.alloc(20);
    torn.writeUInt32LE(5000, 0);
    appendFileSync(join(dir, journal), torn);

    const second = await start(dir);
    expect(second.mongo.recovery!.skippedBytes).toBe(20);
    expect(second.problems.join('\n')).toMatch(/torn record.*skipped 20 bytes/);
    expect(await second.db.collection('events').countDocuments()).toBe(50);
    expect(readdirSync(dir).some((f) => f.includes('.corrupt-'))).toBe(true);
    await second.db.collection('events').insertOne({ _id: 99, n: 99 } as never);
    await stop(second);

    // The damaged tail was cut off, so nothing written after it is lost either.
    const third = await start(dir);
    expect(third.mongo.recovery!.problems).toEqual([]);
    expect(await third.db.collection('events').countDocuments()).toBe(51);
  });

  it('reports a record whose checksum does not match and skips it', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const c = first.db.collection('c');
    await c.insertOne({ _id: 1, v: 'kept' } as never);
    const before = statSync(join(dir, journals(dir)[0])).size;
    await c.insertOne({ _id: 2, v: 'flipped' } as never);
    await stop(first);
    const path = join(dir, journals(dir)[0]);
    const bytes = readFileSync(path);
    bytes[bytes.length - 3] ^= 0xff; // inside the last record's payload
    writeFileSync(path, bytes);

    const second = await start(dir);
    expect(second.problems.join('\n')).toMatch(new RegExp(`corrupt record at byte ${before}`));
    expect(await second.db.collection('c').find().toArray()).toEqual([{ _id: 1, v: 'kept' }]);
  });

  it('refuses a data directory another live process holds', async () => {
    const dir = dataDir();
    const first = await start(dir);
    writeFileSync(join(dir, 'LOCK'), `${process.ppid}\n`);
    await expect(startEmbeddedMongo({ dataDir: dir })).rejects.toThrow(/in use by process/);
    writeFileSync(join(dir, 'LOCK'), `${process.pid}\n`);
    await stop(first);
  });

  it('loses no acknowledged write when the engine process is killed with SIGKILL mid-stream', async () => {
    const dir = dataDir();
    const launch = async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      open.push(child);
      const uri = await new Promise<string>((ok, fail) => {
        const lines = createInterface({ input: child.stdout! });
        lines.once('line', ok);
        child.once('exit', (code) => fail(new Error(`engine exited with ${code}`)));
      });
      return { child, uri };
    };
    const { child, uri } = await launch();
    const client = new MongoClient(uri, { maxPoolSize: 8, serverSelectionTimeoutMS: 2000 });
    await client.connect();
    const coll = client.db('crash').collection('writes');
    await coll.createIndex({ key: 1 }, { unique: true });
    const acknowledged: number[] = [];
    let stopped = false;
    const writer = async (w: number) => {
      for (let i = 0; !stopped; i++) {
        const id = w * 1_000_000 + i;
        try {
          await coll.insertOne({ _id: id as never, key: `k${id}`, payload: 'p'.repeat(200) });
          acknowledged.push(id);
        } catch {
          return;
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    while (acknowledged.length < 2000) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    stopped = true;
    await Promise.all(writers);
    await client.close(true);

    const restarted = await launch();
    const check = await MongoClient.connect(restarted.uri);
    open.push(check);
    const stored = await check.db('crash').collection('writes').find().toArray();
    const ids = new Set(stored.map((d) => d._id as unknown as number));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    for (const d of stored) expect(d).toEqual({ _id: d._id, key: `k${d._id}`, payload: 'p'.repeat(200) });
    await expect(
      check
        .db('crash')
        .collection('writes')
        .insertOne({ key: `k${acknowledged[0]}` }),
    ).rejects.toMatchObject({ code: 11000 });
  });
});

describe('acknowledgement', () => {
  it('answers a write only once its journal record is durable, and keeps replies in request order', async () => {
    const engine = new Engine({});
    const gates: Array<() => void> = [];
    engine.attachJournal({ append: () => new Promise<void>((ok) => gates.push(ok)) });
    const served = await serveEngine(engine);
    const client = await MongoClient.connect(served.uri, { maxPoolSize: 1 });
    try {
      const coll = client.db('ack').collection('c');
      let acknowledged = false;
      const write = coll.insertOne({ _id: 1 } as never).then(() => (acknowledged = true));
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 200));
      expect(acknowledged).toBe(false);
      gates[0]();
      await write;
      expect(acknowledged).toBe(true);
      // Reads are not journaled and are answered at once.
      expect(await coll.findOne({ _id: 1 as never })).toEqual({ _id: 1 });
    } finally {
      await client.close();
      await served.stop();
      engine.close();
    }
  });
});
