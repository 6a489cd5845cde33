/**
 * The sharding rules, checked statically against every model: each collection has a plan, every
 * unique index is one a sharded cluster can keep, the docs name the same keys, and a write that a
 * sharded cluster could not route is refused before it is sent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredIndexes, SHARD_KEYS, shardKeyOf, uniqueIndexProblem, unroutedWriteProblem, UnroutedWriteError } from '@cw/db';
import { openPlatformData } from './platform-data';

// A connection that never connects: models compile, hooks run, and a write that passes them fails
// at once for want of a connection (no buffering).
const conn = mongoose.createConnection('mongodb://127.0.0.1:1/none', { serverSelectionTimeoutMS: 300, bufferCommands: false });
conn.on('error', () => undefined);
conn.asPromise().catch(() => undefined);
const { models } = openPlatformData(conn);
afterAll(() => conn.close());

describe('shard-key table', () => {
  it('has a plan for every model collection, and names no collection that does not exist', () => {
    const collections = Object.values(models).map((m) => m.collection.collectionName);
    for (const c of collections) expect(SHARD_KEYS[c], c).toBeDefined();
    expect(Object.keys(SHARD_KEYS).filter((c) => !collections.includes(c))).toEqual([]);
  });

  it('every declared unique index is prefixed by its collection shard key (none beside _id on a hashed key)', () => {
    const problems = declaredIndexes(models)
      .map((i) => uniqueIndexProblem(i.collection, i.key, i.options))
      .filter(Boolean);
    expect(problems).toEqual([]);
  });

  it('the check fails an index a sharded cluster would refuse', () => {
    expect(uniqueIndexProblem('conversions', { campaign_id: 1, order_ref: 1 }, { unique: true })).toMatch(/hashed key/);
    expect(uniqueIndexProblem('clicks', { publisher_id: 1, link_id: 1 }, { unique: true })).toMatch(/only _id can be unique/);
    expect(uniqueIndexProblem('conversions', { publisher_id: 1, occurred_at: -1 }, {})).toBeUndefined();
    expect(uniqueIndexProblem('credentials', { hash: 1 }, { unique: true })).toBeUndefined();
  });

  it('docs/scaling.md names each collection with the same shard key', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/scaling.md'), 'utf8');
    for (const [collection, plan] of Object.entries(SHARD_KEYS)) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${collection}\``));
      expect(row, `docs/scaling.md has no row for ${collection}`).toBeDefined();
      const key = 'key' in plan ? `\`${JSON.stringify(plan.key).replace(/"/g, '').replace(/,/g, ', ').replace(/:/g, ': ')}\`` : 'unsharded';
      expect(row, collection).toContain(key);
    }
  });
});

describe('writes name their shard key', () => {
  it('routes single-document writes by the whole key or _id; findOneAnd* and upserts need the whole key', () => {
    expect(unroutedWriteProblem('conversions', 'findOneAndUpdate', { _id: 'cnv_1', status: 'pending' })).toBeUndefined();
    expect(unroutedWriteProblem('conversions', 'updateOne', { _id: { $eq: 'cnv_1' } })).toBeUndefined();
    expect(unroutedWriteProblem('conversions', 'updateOne', { publisher_id: 'pub_1' })).toMatch(/must name its shard key/);
    expect(unroutedWriteProblem('conversions', 'updateOne', { _id: { $in: ['a', 'b'] } })).toMatch(/must name/);
    expect(unroutedWriteProblem('clicks', 'updateOne', { _id: 'clk_1' })).toBeUndefined();
    expect(unroutedWriteProblem('clicks', 'findOneAndUpdate', { _id: 'clk_1' })).toMatch(/publisher_id/);
    expect(unroutedWriteProblem('clicks', 'updateOne', { _id: 'clk_1' }, { upsert: true })).toMatch(/publisher_id/);
    expect(unroutedWriteProblem('clicks', 'findOneAndUpdate', { publisher_id: 'pub_1', _id: 'clk_1' })).toBeUndefined();
    expect(unroutedWriteProblem('publishers', 'updateOne', { status: 'active' })).toBeUndefined();
    expect(shardKeyOf('publishers')).toBeUndefined();
  });

  it('refuses through mongoose, before sending, a write a sharded cluster could not route', async () => {
    await expect(models.Conversion.findOneAndUpdate({ publisher_id: 'pub_1' }, { $set: { paid: true } })).rejects.toBeInstanceOf(UnroutedWriteError);
    await expect(models.PostbackDelivery.updateOne({ status: 'pending' }, { $set: { status: 'dead' } })).rejects.toBeInstanceOf(UnroutedWriteError);
    await expect(
      models.Click.bulkWrite([{ updateOne: { filter: { _id: 'clk_1' }, update: { $set: { is_bot: true } }, upsert: true } }]),
    ).rejects.toBeInstanceOf(UnroutedWriteError);
    // A routed write passes the guard and only then fails for want of a connection.
    const routed = await models.Conversion.findOneAndUpdate({ _id: 'cnv_1' }, { $set: { paid: true } }).catch((e: unknown) => e);
    expect(routed).toBeInstanceOf(Error);
    expect(routed).not.toBeInstanceOf(UnroutedWriteError);
    // Many-document writes may scatter; unsharded collections are not checked.
    expect(await models.Conversion.updateMany({ publisher_id: 'pub_1' }, { $set: { paid: true } }).catch((e: unknown) => e)).not.toBeInstanceOf(
      UnroutedWriteError,
    );
    expect(await models.Publisher.updateOne({ status: 'active' }, { $set: { status: 'inactive' } }).catch((e: unknown) => e)).not.toBeInstanceOf(
      UnroutedWriteError,
    );
  });
});
