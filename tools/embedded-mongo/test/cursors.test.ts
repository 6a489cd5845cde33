/**
 * Cursors as a client lives with them: closed when left unused past the cursor timeout (unless
 * opened with noCursorTimeout), and maxTimeMS counting the engine's time, not the client's pauses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src/index';

const servers: Array<{ m: EmbeddedMongo; client: MongoClient }> = [];
/** An engine holding 1,000 documents { i } in collection c. */
async function engine(opts: Parameters<typeof startEmbeddedMongo>[0] = {}): Promise<Db> {
  const m = await startEmbeddedMongo(opts);
  const client = await new MongoClient(m.uri).connect();
  servers.push({ m, client });
  const db = client.db('cursors');
  await db.collection('c').insertMany(Array.from({ length: 1000 }, (_, i) => ({ i })));
  return db;
}
afterAll(async () => {
  for (const { m, client } of servers) {
    await client.close();
    await m.stop();
  }
});

describe('open cursors', () => {
  it('are closed when unused past the cursor timeout (43 on the next getMore); noCursorTimeout keeps one', async () => {
    const db = await engine({ cursorTimeoutMs: 100, ttlMonitorIntervalMs: 25 });
    const idle = await db.command({ find: 'c', batchSize: 10 });
    const kept = await db.command({ find: 'c', batchSize: 10, noCursorTimeout: true });
    await sleep(600);
    const e = await db.command({ getMore: idle.cursor.id, collection: 'c' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MongoServerError);
    expect((e as MongoServerError).code).toBe(43);
    const more = await db.command({ getMore: kept.cursor.id, collection: 'c', batchSize: 10 });
    expect(more.cursor.nextBatch.map((d: { i: number }) => d.i)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    await db.command({ killCursors: 'c', cursors: [kept.cursor.id] });
  });

  it('count maxTimeMS against the time spent reading, not the time the client waits between batches', async () => {
    const db = await engine();
    const cursor = db.collection('c').find({ i: { $gte: 0 } }, { batchSize: 5, maxTimeMS: 60 });
    expect((await cursor.next())!.i).toBe(0);
    await sleep(300);
    expect((await cursor.toArray()).map((d) => d.i)).toEqual(Array.from({ length: 999 }, (_, i) => i + 1));
  });
});
