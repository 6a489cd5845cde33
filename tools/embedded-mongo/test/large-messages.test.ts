/**
 * Large messages both ways: replies of megabytes (sent from reused buffers, src/wire.ts
 * ReplyBuffers) arrive whole and unmixed however many are in flight, and a request that arrives in
 * many pieces, its length split across two, is answered once it is whole.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Binary, deserialize, serialize } from 'bson';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src/index';

let m: EmbeddedMongo;
let client: MongoClient;
beforeAll(async () => {
  m = await startEmbeddedMongo();
  client = await MongoClient.connect(m.uri, { maxPoolSize: 8 });
});
afterAll(async () => {
  await client?.close();
  await m?.stop();
});

/** Document i: 256 KiB of byte i and a string naming it, so a reply holding another's bytes shows. */
const docOf = (i: number) => ({ _id: i, bytes: new Binary(Buffer.alloc(256 * 1024, i)), label: `doc-${i}-`.repeat(500) });

/** An OP_MSG of one body section, request id `id`. */
function opMsg(id: number, command: object): Buffer {
  const body = Buffer.from(serialize(command));
  const head = Buffer.alloc(21);
  head.writeInt32LE(21 + body.length, 0);
  head.writeInt32LE(id, 4);
  head.writeInt32LE(2013, 12);
  return Buffer.concat([head, body]);
}

describe('large messages', () => {
  it('answers many concurrent multi-megabyte reads whole, each with its own documents', async () => {
    const c = client.db('large').collection<{ _id: number; bytes: Binary; label: string }>('docs');
    await c.insertMany(Array.from({ length: 48 }, (_, i) => docOf(i)));
    // Twelve reads at once, each 4-16 documents (1-4 MiB a reply), with small replies between them.
    const reads = Array.from({ length: 12 }, (_, r) => {
      const from = (r * 7) % 40;
      const n = 4 + (r % 4) * 4;
      return c
        .find({ _id: { $gte: from, $lt: from + n } }, { batchSize: n })
        .sort({ _id: 1 })
        .toArray()
        .then((docs) => ({ from, n, docs }));
    });
    const pings = Array.from({ length: 12 }, () => client.db('large').command({ ping: 1 }));
    const [answers] = await Promise.all([Promise.all(reads), Promise.all(pings)]);
    for (const { from, n, docs } of answers) {
      expect(docs.map((d) => d._id)).toEqual(Array.from({ length: Math.min(n, 48 - from) }, (_, k) => from + k));
      for (const d of docs) {
        const bytes = Buffer.from(d.bytes.buffer);
        expect(bytes.length).toBe(256 * 1024);
        expect(bytes.every((b) => b === d._id)).toBe(true);
        expect(d.label).toBe(docOf(d._id).label);
      }
    }
  });

  it('keeps a reply the client is slow to read intact while other replies are sent', async () => {
    const c = client.db('large').collection('docs');
    // A reader that sends a find for all 48 documents (megabytes) and reads nothing yet: the reply
    // cannot all leave, and waits in the engine's buffer while other reads are answered.
    const slow = net.connect(m.port, '127.0.0.1');
    slow.pause();
    await new Promise((resolve) => slow.once('connect', resolve));
    slow.write(opMsg(77, { find: 'docs', $db: 'large', filter: {}, sort: { _id: 1 }, batchSize: 48 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let r = 0; r < 4; r++) {
      const docs = await c.find({}, { batchSize: 48 }).sort({ _id: -1 }).toArray();
      expect(docs).toHaveLength(48);
    }
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      slow.on('data', (chunk) => {
        chunks.push(chunk);
        const got = Buffer.concat(chunks);
        if (got.length >= 4 && got.length >= got.readInt32LE(0)) resolve(got);
      });
      slow.on('error', reject);
      slow.resume();
    });
    slow.destroy();
    expect(reply.readInt32LE(8)).toBe(77);
    const docs = deserialize(reply.subarray(21)).cursor.firstBatch as Array<{ _id: number; bytes: Binary; label: string }>;
    // As many as a batch holds (the engine caps a batch's bytes): megabytes still.
    expect(docs.length).toBeGreaterThan(16);
    expect(docs.map((d) => d._id)).toEqual(Array.from({ length: docs.length }, (_, i) => i));
    for (const d of docs) {
      expect(Buffer.from(d.bytes.buffer).equals(Buffer.alloc(256 * 1024, d._id))).toBe(true);
      expect(d.label).toBe(docOf(d._id).label);
    }
  });

  it('answers a request that arrives in many pieces, its length split across the first two', async () => {
    const message = opMsg(41, { insert: 'pieces', $db: 'large', documents: [docOf(7)] });
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      // 3 bytes, then the rest in 4 KiB pieces, each written after the last was sent.
      const pieces = [message.subarray(0, 3)];
      for (let at = 3; at < message.length; at += 4096) pieces.push(message.subarray(at, at + 4096));
      const sendNext = () => {
        const piece = pieces.shift();
        if (piece) socket.write(piece, () => setImmediate(sendNext));
      };
      const socket = net.connect(m.port, '127.0.0.1', sendNext);
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        const got = Buffer.concat(chunks);
        if (got.length >= 4 && got.length >= got.readInt32LE(0)) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', reject);
    });
    expect(reply.readInt32LE(8)).toBe(41); // responseTo
    expect(deserialize(reply.subarray(21))).toMatchObject({ ok: 1, n: 1 });
    const stored = await client
      .db('large')
      .collection('pieces')
      .findOne({ _id: 7 as never });
    expect(Buffer.from((stored!.bytes as Binary).buffer).equals(Buffer.alloc(256 * 1024, 7))).toBe(true);
  });
});
