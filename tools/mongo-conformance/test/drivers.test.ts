/** The real mongoose and Agenda drivers against the engine (or MONGODB_URI). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import mongoose from 'mongoose';
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { MongoClient } from 'mongodb';
import { createTestDatabase, type TestDatabase } from '@cw-tools/testing';

let tdb: TestDatabase;
let conn: mongoose.Connection;

beforeAll(async () => {
  tdb = await createTestDatabase();
  conn = await mongoose.createConnection(tdb.uri).asPromise();
});
afterAll(async () => {
  await conn?.close();
  await tdb?.stop();
});

describe('mongoose', () => {
  const schema = new mongoose.Schema(
    { email: { type: String, required: true, unique: true }, plan: String, balance: { type: mongoose.Schema.Types.Decimal128, default: '0' } },
    { timestamps: true },
  );

  it('builds unique indexes from the schema and reports duplicates as E11000', async () => {
    const User = conn.model('User', schema);
    await User.init();
    await User.create({ email: 'a@example.com' });
    await expect(User.create({ email: 'a@example.com' })).rejects.toMatchObject({ code: 11000, keyValue: { email: 'a@example.com' } });
    const names = (await User.collection.listIndexes().toArray()).map((i) => i.name);
    expect(names).toContain('email_1');
  });

  it('keeps Decimal128 money exact through save, $inc and an aggregate report', async () => {
    const Wallet = conn.model('Wallet', schema);
    await Wallet.init();
    await Wallet.create([
      { email: 'w1@x', plan: 'pro', balance: '0.10' },
      { email: 'w2@x', plan: 'pro', balance: '0.20' },
    ]);
    await Wallet.updateOne({ email: 'w1@x' }, { $inc: { balance: mongoose.Types.Decimal128.fromString('0.05') } });
    const [row] = await Wallet.aggregate([{ $match: { plan: 'pro' } }, { $group: { _id: '$plan', total: { $sum: '$balance' }, n: { $sum: 1 } } }]);
    expect(row.total.toString()).toBe('0.35');
    expect(row.n).toBe(2);
  });

  it('upserts with findOneAndUpdate and keeps createdAt from the first write', async () => {
    const Item = conn.model('Item', new mongoose.Schema({ sku: { type: String, unique: true }, price: Number }, { timestamps: true }));
    await Item.init();
    const a = await Item.findOneAndUpdate({ sku: 'S1' }, { $set: { price: 1 } }, { upsert: true, returnDocument: 'after' });
    const b = await Item.findOneAndUpdate({ sku: 'S1' }, { $set: { price: 2 } }, { upsert: true, returnDocument: 'after' });
    expect(b!._id.equals(a!._id)).toBe(true);
    expect(b!.createdAt.getTime()).toBe(a!.createdAt.getTime());
    expect(await Item.countDocuments()).toBe(1);
  });
});

describe('agenda', () => {
  it('runs immediate and scheduled jobs, retries failures with backoff, and releases locks', async () => {
    const client = await MongoClient.connect(tdb.serverUri);
    const agenda = new Agenda({ backend: new MongoBackend({ mongo: client.db(tdb.dbName), collection: 'jobs' }), processEvery: 100 });
    const ran: string[] = [];
    let attempts = 0;
    agenda.define('note', async (job) => {
      ran.push((job.attrs.data as { id: string }).id);
    });
    agenda.define(
      'flaky',
      async () => {
        attempts++;
        if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
      },
      { backoff: (ctx) => (ctx.attempt <= 5 ? 50 : null) },
    );
    const failures: number[] = [];
    agenda.on('fail', (_err: Error, job: { attrs: { failCount?: number } }) => failures.push(job.attrs.failCount ?? 0));
    try {
      await agenda.start();
      await agenda.now('note', { id: 'now' });
      await agenda.schedule(new Date(Date.now() + 300), 'note', { id: 'later' });
      await agenda.now('flaky', {});
      await vi.waitFor(() => expect(ran).toEqual(['now', 'later']), { timeout: 10_000, interval: 50 });
      await vi.waitFor(() => expect(attempts).toBe(3), { timeout: 10_000, interval: 50 });
      expect(failures).toEqual([1, 2]);
      await vi.waitFor(
        async () => {
          const jobs = await client.db(tdb.dbName).collection('jobs').find().toArray();
          expect(jobs).toHaveLength(3);
          expect(jobs.every((j) => j.lockedAt == null && j.lastFinishedAt instanceof Date)).toBe(true);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await agenda.stop();
      await client.close();
    }
  });
});
