/**
 * The one-process platform's engine thread: reached over its Unix socket and over TCP, the socket
 * gone once it stops, and a socket address that fits even when the temporary directory's path is
 * too long for one (108 bytes on Linux); its state saved to a snapshot file another engine
 * thread starts from (the run's seeds of the suites' platforms).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngineThread } from '../src/engine-thread';

const TMPDIR = process.env.TMPDIR;
afterEach(() => {
  if (TMPDIR === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = TMPDIR;
});

async function roundTrip(tmp?: string): Promise<string> {
  if (tmp) process.env.TMPDIR = tmp;
  const engine = await startEngineThread({});
  const path = decodeURIComponent(engine.socketUri.slice('mongodb://'.length));
  const viaSocket = await MongoClient.connect(engine.socketUri);
  const viaTcp = await MongoClient.connect(engine.uri);
  try {
    await viaTcp
      .db('t')
      .collection('c')
      .insertOne({ _id: 'x' } as never);
    expect(await viaSocket.db('t').collection('c').countDocuments()).toBe(1);
    expect(existsSync(path)).toBe(true);
  } finally {
    await viaSocket.close();
    await viaTcp.close();
    await engine.stop();
  }
  expect(existsSync(path)).toBe(false);
  return path;
}

describe('the engine thread', () => {
  it('serves its Unix socket and TCP, and removes the socket when it stops', async () => {
    expect(await roundTrip()).toMatch(/cw-engine-\d+-[0-9a-f]{8}\.sock$/);
  }, 30_000);

  it('puts its socket in /tmp when the temporary directory path is too long for a socket address', async () => {
    const long = join(tmpdir(), 'x'.repeat(60), 'y'.repeat(60));
    mkdirSync(long, { recursive: true });
    try {
      expect(await roundTrip(long)).toMatch(/^\/tmp\/cw-engine-/);
    } finally {
      rmSync(join(tmpdir(), 'x'.repeat(60)), { recursive: true, force: true });
    }
  }, 30_000);
});

describe('the engine thread snapshot', () => {
  it('saves its whole state to a file another thread starts from, with its own writes after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-thread-snapshot-'));
    const file = join(dir, 'state.bson');
    const first = await startEngineThread({});
    try {
      const client = await MongoClient.connect(first.uri);
      await client
        .db('cw_platform')
        .collection('publishers')
        .insertMany([{ _id: 'pub_1' }, { _id: 'pub_2' }] as never[]);
      await client.db('cw_platform').collection('publishers').createIndex({ name: 1 });
      await client.close();
      await first.saveSnapshot(file);
    } finally {
      await first.stop();
    }
    await expect(first.saveSnapshot(join(dir, 'late.bson'))).rejects.toThrow(/stopped/);

    const second = await startEngineThread({ snapshot: file });
    const client = await MongoClient.connect(second.uri);
    try {
      const publishers = client.db('cw_platform').collection('publishers');
      expect(await publishers.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 'pub_1' }, { _id: 'pub_2' }]);
      expect((await publishers.indexes()).map((i) => i.name)).toContain('name_1');
      await publishers.insertOne({ _id: 'pub_3' } as never);
      expect(await publishers.countDocuments()).toBe(3);
    } finally {
      await client.close();
      await second.stop();
    }

    // A damaged snapshot fails the start with the engine's own error.
    writeFileSync(join(dir, 'damaged.bson'), 'not a snapshot');
    await expect(startEngineThread({ snapshot: join(dir, 'damaged.bson') })).rejects.toThrow(/incomplete or damaged/);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
