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
    const all = c.find({}).filter((d) => d.country === 'GB' && d.price > 100).map((d) => d._id as string).sort().reverse();
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
