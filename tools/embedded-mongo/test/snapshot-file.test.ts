/**
 * One snapshot file as a starting state (what the test suites copy a seeded database from): an
 * engine saves its state, a new engine starts from the file in memory with the same documents
 * and indexes, its own writes never reach the file, and a damaged file refuses to start.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal128, MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo } from '../src/index';

const dir = mkdtempSync(join(tmpdir(), 'cw-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an engine started from a snapshot file', () => {
  it('has the saved documents and indexes, and keeps its own writes to itself', async () => {
    const path = join(dir, 'seeded.bson');
    const first = await startEmbeddedMongo();
    const client = await MongoClient.connect(first.uri);
    try {
      const c = client.db('seeded').collection<{ _id: string; email: string; amount?: Decimal128; at?: Date }>('people');
      await c.createIndex({ email: 1 }, { unique: true });
      await c.insertMany([
        { _id: 'a', email: 'a@example.com', amount: Decimal128.fromString('12.30'), at: new Date('2026-12-01T00:00:00Z') },
        { _id: 'b', email: 'b@example.com' },
      ]);
      await client.db('other').collection('x').insertOne({ n: 1 });
      await first.saveSnapshot(path);
    } finally {
      await client.close();
      await first.stop();
    }
    const saved = readFileSync(path);

    for (let round = 0; round < 2; round++) {
      const copy = await startEmbeddedMongo({ snapshot: path });
      const reader = await MongoClient.connect(copy.uri);
      try {
        const c = reader.db('seeded').collection('people');
        expect(await c.find({}).sort({ _id: 1 }).toArray()).toEqual([
          { _id: 'a', email: 'a@example.com', amount: Decimal128.fromString('12.30'), at: new Date('2026-12-01T00:00:00Z') },
          { _id: 'b', email: 'b@example.com' },
        ]);
        expect((await c.indexes()).map((i) => i.key)).toEqual([{ _id: 1 }, { email: 1 }]);
        await expect(c.insertOne({ _id: 'c', email: 'a@example.com' } as never)).rejects.toMatchObject({ code: 11000 });
        expect(await reader.db('other').collection('x').countDocuments()).toBe(1);
        // A write of this engine stays in this engine: the next one starts from the file again.
        await c.deleteOne({ _id: 'b' } as never);
        expect(await c.countDocuments()).toBe(1);
      } finally {
        await reader.close();
        await copy.stop();
      }
    }
    expect(readFileSync(path).equals(saved)).toBe(true);
  });

  it('refuses a damaged file, and a data directory beside it', async () => {
    const path = join(dir, 'damaged.bson');
    const engine = await startEmbeddedMongo();
    const client = await MongoClient.connect(engine.uri);
    await client
      .db('d')
      .collection('c')
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, pad: 'x'.repeat(200) })) as never);
    await client.close();
    await engine.saveSnapshot(path);
    await engine.stop();
    truncateSync(path, statSync(path).size - 100);
    await expect(startEmbeddedMongo({ snapshot: path })).rejects.toThrow(/incomplete or damaged/);
    await expect(startEmbeddedMongo({ snapshot: path, dataDir: join(dir, 'data') })).rejects.toThrow(/exclude each other/);
  });
});
