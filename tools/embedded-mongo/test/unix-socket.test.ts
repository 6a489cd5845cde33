/**
 * The engine on a Unix socket as well as TCP (what the one-process platform's own connections
 * use): one engine behind both, the driver reaching it through the socket URI, and the socket
 * file gone once the engine stops.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo } from '../src/index';

const dir = mkdtempSync(join(tmpdir(), 'cw-socket-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the engine on a Unix socket', () => {
  it('serves the same data over the socket and TCP, and removes the socket when it stops', async () => {
    const socketPath = join(dir, 'engine.sock');
    const mongo = await startEmbeddedMongo({ socketPath });
    expect(mongo.socketUri).toBe(`mongodb://${encodeURIComponent(socketPath)}`);
    const tcp = await MongoClient.connect(mongo.uri);
    const socket = await MongoClient.connect(mongo.socketUri!);
    try {
      await tcp
        .db('app')
        .collection('c')
        .insertOne({ _id: 'a', n: 1 } as never);
      expect(await socket.db('app').collection('c').find({}).toArray()).toEqual([{ _id: 'a', n: 1 }]);
      const reply = await socket.db('app').command({ find: 'c', filter: { n: 1 }, limit: 1, batchSize: 1, singleBatch: true });
      expect(reply.cursor).toMatchObject({ id: 0, firstBatch: [{ _id: 'a', n: 1 }] });
    } finally {
      await socket.close();
      await tcp.close();
      await mongo.stop();
    }
    expect(existsSync(socketPath)).toBe(false);
  });

  it('refuses to start on a socket another engine listens on', async () => {
    const socketPath = join(dir, 'taken.sock');
    const first = await startEmbeddedMongo({ socketPath });
    try {
      await expect(startEmbeddedMongo({ socketPath })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await first.stop();
    }
  });
});
