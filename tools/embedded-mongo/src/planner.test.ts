import { describe, expect, it } from 'vitest';
import { Collection } from './collection';
import { choosePlan } from './planner';

function catalog(n: number): Collection {
  const c = new Collection('db', 'products');
  c.createIndex({ v: 2, key: { country: 1, gtin: 1 }, name: 'country_gtin' });
  c.createIndex({ v: 2, key: { price: 1 }, name: 'price' });
  for (let i = 0; i < n; i++) c.insert({ _id: `p${String(i).padStart(6, '0')}`, country: i % 2 ? 'DE' : 'GB', gtin: `g${i % 500}`, price: i });
  return c;
}

describe('query planner', () => {
  const c = catalog(5000);
  const indexes = () => [...c.indexes.values()];

  it('uses the longest equality prefix of a compound index', () => {
    const plan = choosePlan(indexes(), { country: 'DE', gtin: 'g7' }, [], 0);
    expect(plan.kind).toBe('ids');
    expect(plan.kind === 'ids' && plan.index).toBe('country_gtin');
    expect(plan.kind === 'ids' && plan.ids.size).toBe(10);
  });

  it('reads only the entries in range after an equality prefix (account + date), when that is the smaller set', () => {
    const k = new Collection('db', 'events');
    k.createIndex({ v: 2, key: { account: 1, at: -1 }, name: 'account_at' });
    for (let i = 0; i < 3000; i++) k.insert({ _id: i, account: i % 3 ? 'a' : 'b', at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000) });
    const from = new Date(Date.UTC(2026, 0, 10));
    const to = new Date(Date.UTC(2026, 0, 12));
    const filter = { account: 'a', at: { $gte: from, $lt: to } };
    const plan = choosePlan([...k.indexes.values()], filter, [], 0);
    expect(plan.kind).toBe('walk');
    expect(plan.kind === 'walk' && plan.prefix).toEqual(['a']);
    const got = k.find(filter).map((d) => d._id as number);
    const expected = [...Array(3000).keys()].filter((i) => i % 3 !== 0 && i >= 216 && i < 264);
    expect(got.sort((x, y) => x - y)).toEqual(expected);
  });

  it('uses $in lists as several equality keys', () => {
    const plan = choosePlan(indexes(), { country: { $in: ['DE', 'GB'] }, gtin: { $in: ['g1', 'g2'] } }, [], 0);
    expect(plan.kind === 'ids' && plan.ids.size).toBe(20);
  });

  it('walks an index in order to serve a sort with a limit', () => {
    const plan = choosePlan(indexes(), { country: 'DE' }, [['_id', 1]], 20);
    expect(plan.kind).toBe('walk');
  });

  it('range-scans the first field of an index', () => {
    const plan = choosePlan(indexes(), { price: { $gte: 10, $lt: 20 } }, [], 0);
    expect(plan.kind).toBe('walk');
    expect(c.find({ price: { $gte: 10, $lt: 20 } }).map((d) => d.price)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('falls back to a scan when no index applies, with the same results', () => {
    expect(choosePlan(indexes(), { gtin: 'g3' }, [], 0).kind).toBe('scan');
    expect(c.find({ gtin: 'g3' })).toHaveLength(10);
  });

  it('returns the same page through an index walk as through a full sort', () => {
    const viaWalk = c.find({ country: 'GB', price: { $gt: 100 } }, { sort: { _id: -1 }, skip: 5, limit: 7 }).map((d) => d._id);
    const all = c
      .find({})
      .filter((d) => d.country === 'GB' && d.price > 100)
      .map((d) => d._id as string)
      .sort()
      .reverse();
    expect(viaWalk).toEqual(all.slice(5, 12));
  });

  it('keeps indexes consistent through replace and remove', () => {
    const k = catalog(10);
    k.replace(Collection.idKey({ _id: 'p000001' }), { _id: 'p000001', country: 'FR', gtin: 'g1', price: 1 });
    expect(k.find({ country: 'FR' }).map((d) => d._id)).toEqual(['p000001']);
    expect(k.find({ country: 'DE', gtin: 'g1' })).toEqual([]);
    k.remove(Collection.idKey({ _id: 'p000001' }));
    expect(k.find({ country: 'FR' })).toEqual([]);
    expect(k.find({ price: { $lte: 2 } }, { sort: { price: 1 }, limit: 5 }).map((d) => d.price)).toEqual([0, 2]);
  });
});

describe('query planner: partial and sparse indexes', () => {
  const c = new Collection('db', 'conversions');
  c.createIndex({ v: 2, key: { account: 1, at: -1 }, name: 'account_at' });
  c.createIndex({ v: 2, key: { pending: 1, account: 1 }, name: 'pending', partialFilterExpression: { pending: true } });
  c.createIndex({ v: 2, key: { since: 1 }, name: 'since', partialFilterExpression: { since: { $exists: true } } });
  c.createIndex({ v: 2, key: { ref: 1 }, name: 'ref', sparse: true });
  for (let i = 0; i < 3000; i++)
    c.insert({
      _id: i,
      account: i % 2 ? 'a' : 'b',
      at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      ...(i % 500 === 7 ? { pending: true, since: i } : { pending: false }),
      ...(i % 3 ? { ref: `r${i}` } : {}),
    });
  const indexes = () => [...c.indexes.values()];
  const ids = (filter: Record<string, unknown>) =>
    c
      .find(filter)
      .map((d) => d._id as number)
      .sort((x, y) => x - y);
  const every = (filter: (i: number) => boolean) => [...Array(3000).keys()].filter(filter);

  it('reads a partial index when the filter implies its expression, as MongoDB does (a few pending among many)', () => {
    const plan = choosePlan(indexes(), { pending: true, account: 'a' }, [], 1);
    expect(plan.kind === 'ids' && plan.index).toBe('pending');
    expect(ids({ pending: true, account: 'a' })).toEqual(every((i) => i % 500 === 7 && i % 2 === 1));
    const ranged = choosePlan(indexes(), { since: { $lte: 1200 } }, [], 0);
    expect(ranged.kind === 'walk' && ranged.index.name).toBe('since');
    expect(ids({ since: { $lte: 1200 } })).toEqual(every((i) => i % 500 === 7 && i <= 1200));
  });

  it('never reads a partial or sparse index the filter does not imply: it would miss documents', () => {
    for (const filter of [{ pending: false, account: 'a' }, { pending: { $ne: true } }, { since: null }, { ref: null }, { ref: { $exists: false } }]) {
      const plan = choosePlan(indexes(), filter, [], 0);
      expect(plan.kind === 'ids' ? plan.index : plan.kind === 'walk' || plan.kind === 'merge' ? plan.index.name : 'scan').not.toMatch(/^(pending|since|ref)$/);
    }
    expect(ids({ pending: false, account: 'a' })).toEqual(every((i) => i % 500 !== 7 && i % 2 === 1));
    expect(ids({ ref: null })).toEqual(every((i) => i % 3 === 0));
    const sparse = choosePlan(indexes(), { ref: 'r4' }, [], 0);
    expect(sparse.kind === 'ids' && sparse.index).toBe('ref');
    expect(ids({ ref: 'r4' })).toEqual([4]);
  });
});

describe('query planner: $or unions and merged walks', () => {
  const c = catalog(5000);
  const indexes = () => [...c.indexes.values()];

  it('reads the union of indexable $or branches instead of scanning', () => {
    const filter = {
      price: { $lt: 4000 },
      $or: [
        { country: 'DE', gtin: 'g7' },
        { country: 'GB', gtin: { $in: ['g8', 'g10'] } },
      ],
    };
    const plan = choosePlan(indexes(), filter, [['_id', 1]], 21);
    expect(plan.kind).toBe('ids');
    expect(plan.kind === 'ids' && plan.ids.size).toBe(30);
    const expected = c
      .find({})
      .filter((d) => d.price < 4000 && ((d.country === 'DE' && d.gtin === 'g7') || (d.country === 'GB' && ['g8', 'g10'].includes(d.gtin as string))));
    expect(c.find(filter, { sort: { _id: 1 } }).map((d) => d._id)).toEqual(expected.map((d) => d._id).sort());
  });

  it('scans when one $or branch has no usable index', () => {
    expect(choosePlan(indexes(), { $or: [{ country: 'DE', gtin: 'g7' }, { price: 5 }, { other: 1 }] }, [], 0).kind).toBe('scan');
  });

  it('merges one ordered walk per $in combination to serve a sort, with the same page as a full sort', () => {
    const k = new Collection('db', 'merged');
    k.createIndex({ v: 2, key: { country: 1, program: 1, _id: 1 }, name: 'cpi' });
    for (let i = 0; i < 3000; i++)
      k.insert({ _id: `p${String((i * 7919) % 3000).padStart(5, '0')}`, country: ['DE', 'GB', 'FR'][i % 3], program: i % 7, stock: i % 4 !== 0 });
    const filter = { country: { $in: ['DE', 'FR'] }, program: { $in: [1, 3, 5] }, stock: true };
    const plan = choosePlan([...k.indexes.values()], filter, [['_id', 1]], 25);
    expect(plan.kind).toBe('merge');
    expect(plan.kind === 'merge' && plan.prefixes).toHaveLength(6);
    for (const dir of [1, -1]) {
      const all = k
        .find({})
        .filter((d) => ['DE', 'FR'].includes(d.country as string) && [1, 3, 5].includes(d.program as number) && d.stock)
        .map((d) => d._id as string)
        .sort();
      if (dir < 0) all.reverse();
      expect(k.find(filter, { sort: { _id: dir }, skip: 10, limit: 25 }).map((d) => d._id)).toEqual(all.slice(10, 35));
    }
  });
});
