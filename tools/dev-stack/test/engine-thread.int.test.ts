/**
 * The one-process platform's engine thread: reached over its Unix socket and over TCP, the socket
 * gone once it stops, and a socket address that fits even when the temporary directory's path is
 * too long for one (108 bytes on Linux).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
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
