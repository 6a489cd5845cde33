/** Bad wire input gets an error reply or a closed connection, never a crashed engine. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deserialize, serialize } from 'bson';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src/index';

let m: EmbeddedMongo;
beforeAll(async () => {
  m = await startEmbeddedMongo();
});
afterAll(async () => m?.stop());

function header(length: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(7, 4);
  h.writeInt32LE(0, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

function opMsg(body: Buffer): Buffer {
  const flags = Buffer.alloc(5);
  return Buffer.concat([header(16 + 5 + body.length, 2013), flags, body]);
}

/** Sends bytes, collects what comes back until the server closes or goes quiet. */
function exchange(bytes: Buffer, quietMs = 300): Promise<{ closed: boolean; data: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(m.port, '127.0.0.1', () => socket.write(bytes));
    let timer = setTimeout(() => finish(false), quietMs);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ closed, data: Buffer.concat(chunks) });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), quietMs);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

async function stillServes(): Promise<void> {
  const client = await MongoClient.connect(m.uri, { serverSelectionTimeoutMS: 2000 });
  try {
    expect((await client.db('x').command({ ping: 1 })).ok).toBe(1);
  } finally {
    await client.close();
  }
}

describe('malformed wire input', () => {
  it('answers a well-formed OP_MSG ping', async () => {
    const { data } = await exchange(opMsg(Buffer.from(serialize({ ping: 1, $db: 'admin' }))));
    const reply = deserialize(data.subarray(21));
    expect(reply.ok).toBe(1);
  });

  it('closes the connection on an unknown opcode', async () => {
    const r = await exchange(Buffer.concat([header(26, 9999), Buffer.alloc(10)]));
    expect(r.closed).toBe(true);
    expect(r.data.length).toBe(0);
    await stillServes();
  });

  it('closes the connection on an impossible message length', async () => {
    expect((await exchange(header(5, 2013))).closed).toBe(true);
    expect((await exchange(header(2_000_000_000, 2013))).closed).toBe(true);
    await stillServes();
  });

  it('answers a BSON body whose length runs past the message with an error reply', async () => {
    const body = Buffer.from(serialize({ ping: 1, $db: 'admin' }));
    body.writeInt32LE(body.length + 100, 0);
    const { data } = await exchange(opMsg(body));
    const reply = deserialize(data.subarray(21));
    expect(reply.ok).toBe(0);
    expect(reply.code).toBe(22);
    await stillServes();
  });

  it('waits for the rest of a truncated message and serves the next connection meanwhile', async () => {
    const full = opMsg(Buffer.from(serialize({ ping: 1, $db: 'admin' })));
    const r = await exchange(full.subarray(0, full.length - 3), 200);
    expect(r.data.length).toBe(0);
    await stillServes();
  });

  it('rejects an oversized document through the driver and keeps serving', async () => {
    const client = await MongoClient.connect(m.uri);
    try {
      const big = 'x'.repeat(17 * 1024 * 1024);
      await expect(client.db('x').collection('big').insertOne({ big })).rejects.toThrow();
      expect(await client.db('x').collection('big').countDocuments()).toBe(0);
    } finally {
      await client.close();
    }
    await stillServes();
  });

  it('refuses a document over 16 MiB that reaches the server', async () => {
    // 16 MiB + a little: the driver would refuse it, so it is sent raw.
    const doc = Buffer.from(serialize({ insert: 'big', $db: 'x', documents: [{ big: 'y'.repeat(16 * 1024 * 1024) }] }));
    // The wait for a reply is generous: parsing 16 MiB on a loaded machine takes seconds.
    const { data } = await exchange(opMsg(doc), 20_000);
    const reply = deserialize(data.subarray(21));
    expect(reply.ok === 0 || reply.writeErrors?.length === 1).toBe(true);
    await stillServes();
  });
});
