import { describe, expect, it } from 'vitest';
import type { Document } from './bson';
import { Collection } from './collection';
import { choosePlan } from './planner';

/** A seeded generator: the same history on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const byAThenId = (x: Document, y: Document) => x.a - y.a || x._id - y._id;

describe('index entries in sorted chunks', () => {
  it('answer equality, $in, ranges, sorted pages and uniqueness as a scan would, through thousands of inserts, updates and deletes', () => {
    const rnd = random(7);
    const c = new Collection('db', 'c');
    c.createIndex({ v: 2, key: { a: 1 }, name: 'a' });
    c.createIndex({ v: 2, key: { b: 1, a: -1 }, name: 'b_a' });
    c.createIndex({ v: 2, key: { u: 1 }, name: 'u', unique: true });
    // Recovery's path first (staged, sorted once), then live writes on top of it.
    for (let i = 0; i < 3000; i++) c.load({ _id: i, a: Math.floor(rnd() * 500), b: `b${i % 7}`, u: i });
    let nextId = 3000;
    const live = () => [...c.docs.values()];
    for (let step = 0; step < 6000; step++) {
      const r = rnd();
      const ids = [...c.docs.keys()];
      if (r < 0.45) c.insert({ _id: nextId, a: Math.floor(rnd() * 500), b: `b${nextId % 7}`, u: nextId++ });
      else if (r < 0.7) {
        const id = ids[Math.floor(rnd() * ids.length)];
        const doc = c.get(id)!;
        c.replace(id, { ...doc, a: Math.floor(rnd() * 500), b: rnd() < 0.5 ? doc.b : 'b0' });
      } else c.remove(ids[Math.floor(rnd() * ids.length)]);
      if (step % 500 !== 0) continue;
      const docs = live();
      const a = Math.floor(rnd() * 500);
      expect(
        c
          .find({ a })
          .map((d) => d._id)
          .sort((x, y) => x - y),
      ).toEqual(
        docs
          .filter((d) => d.a === a)
          .map((d) => d._id)
          .sort((x, y) => x - y),
      );
      const lo = Math.floor(rnd() * 400);
      const inRange = docs.filter((d) => d.a >= lo && d.a < lo + 60).sort(byAThenId);
      expect(c.find({ a: { $gte: lo, $lt: lo + 60 } }, { sort: { a: 1, _id: 1 } }).map((d) => d._id)).toEqual(inRange.map((d) => d._id));
      const bs = ['b1', 'b3'];
      const page = docs.filter((d) => bs.includes(d.b) && d.a < 250).sort((x, y) => y.a - x.a || x._id - y._id);
      expect(c.find({ b: { $in: bs }, a: { $lt: 250 } }, { sort: { a: -1, _id: 1 } }).map((d) => d._id)).toEqual(page.map((d) => d._id));
      expect(choosePlan([...c.indexes.values()], { b: 'b2' }, [], 0).kind).toBe('ids');
      expect(c.indexes.get('b_a')!.count([['b2']], 1)).toBe(docs.filter((d) => d.b === 'b2').length);
      expect(c.indexes.get('a')!.size).toBe(docs.length);
    }
    const [someone] = live();
    expect(() => c.insert({ _id: -1, a: 1, b: 'b1', u: someone.u })).toThrow(/E11000 .* index: u dup key/);
  });

  it('resume a paused walk after the last entry it gave, across splits and removals, reading entries added ahead', () => {
    const c = new Collection('db', 'w');
    c.createIndex({ v: 2, key: { a: 1 }, name: 'a' });
    for (let i = 0; i < 5000; i++) c.insert({ _id: i, a: i * 2 });
    const cursor = c.scan({ a: { $gte: 0 } }, { sort: { a: 1 } });
    const read: number[] = [];
    for (let i = 0; i < 100; i++) read.push(cursor.next().value!.a);
    // Between batches: entries removed ahead and behind, inserted ahead (enough to split chunks) and behind.
    for (let i = 100; i < 400; i++) c.remove(Collection.idKey({ _id: i }));
    for (let i = 0; i < 3000; i++) c.insert({ _id: 10_000 + i, a: 1001 + i * 2 });
    c.insert({ _id: -5, a: 1 });
    for (let r = cursor.next(); !r.done; r = cursor.next()) read.push(r.value.a);
    const ahead = [...c.docs.values()]
      .map((d) => d.a as number)
      .filter((a) => a > 198)
      .sort((x, y) => x - y);
    const expected = [...Array.from({ length: 100 }, (_, i) => i * 2), ...ahead];
    expect(read).toEqual(expected);
  });
});
