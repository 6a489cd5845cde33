import { Decimal128, Long } from 'bson';
import { Query } from 'mingo/query';
import { describe, expect, it } from 'vitest';
import { compileFastMatch } from './fast-match';
import { mingoOptions } from './mingo-context';

/** A small deterministic PRNG so failures reproduce. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const VALUES: unknown[] = [
  0,
  1,
  2.5,
  -3,
  10,
  Decimal128.fromString('2.50'),
  Decimal128.fromString('10'),
  Long.fromString('9007199254740993'),
  Long.fromNumber(1),
  'a',
  'apple',
  'Banana',
  'summit trail 42',
  '',
  null,
  true,
  false,
  new Date('2026-01-01T00:00:00Z'),
  new Date('2026-06-01T00:00:00Z'),
  [1, 2],
  ['a', 'apple'],
  [],
  [null],
  [0, 'apple', null, new Date('2026-01-01T00:00:00Z')],
  [Decimal128.fromString('10'), 2.5],
  [[1, 2]],
  [{ x: 1 }],
  { x: 1 },
];

describe('compiled fast matcher', () => {
  it('decides exactly as the mingo context does, or defers to it', () => {
    const rnd = prng(42);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const scalar = () =>
      pick(VALUES.filter((v) => !Array.isArray(v) && !(v && typeof v === 'object' && !(v instanceof Date) && !('_bsontype' in (v as object)))));
    const fields = ['a', 'b', 'c'];
    const condition = (): unknown => {
      switch (Math.floor(rnd() * 9)) {
        case 0:
          return scalar();
        case 1:
          return { $ne: scalar() };
        case 2:
          return { $in: [scalar(), scalar()] };
        case 3:
          return { $nin: [scalar()] };
        case 4:
          return { [pick(['$gt', '$gte', '$lt', '$lte'])]: scalar() };
        case 5:
          return { $regex: pick(['^a', 'pp', 'TRAIL', 'an']), ...(rnd() < 0.5 ? { $options: 'i' } : {}) };
        case 6:
          return { $exists: rnd() < 0.5 };
        case 7:
          return { $gte: scalar(), $lte: scalar() };
        default:
          return new RegExp(pick(['^s', 'e$', '4']));
      }
    };
    let decided = 0;
    for (let i = 0; i < 3000; i++) {
      const doc: Record<string, unknown> = {};
      for (const f of fields) if (rnd() < 0.85) doc[f] = pick(VALUES);
      const clause = () => Object.fromEntries(fields.filter(() => rnd() < 0.5).map((f) => [f, condition()]));
      const filter = rnd() < 0.2 ? { [pick(['$and', '$or'])]: [clause(), clause()] } : clause();
      const fast = compileFastMatch(filter);
      expect(fast, JSON.stringify(filter)).toBeDefined();
      const verdict = fast!(doc);
      if (verdict === undefined) continue;
      decided++;
      expect(verdict, `${JSON.stringify(filter)} on ${JSON.stringify(doc)}`).toBe(new Query(filter, mingoOptions()).test(doc));
    }
    expect(decided).toBeGreaterThan(2000);
  });

  it('leaves dotted paths, embedded documents, array operands and other operators to mingo', () => {
    for (const f of [
      { 'a.b': 1 },
      { a: { x: 1 } },
      { a: [1, 2] },
      { a: { $size: 2 } },
      { a: { $elemMatch: { x: 1 } } },
      { $nor: [{ a: 1 }] },
      { $expr: { $eq: ['$a', 1] } },
    ]) {
      expect(compileFastMatch(f), JSON.stringify(f)).toBeUndefined();
    }
    // An array of scalars is matched by its elements (checked against mingo above); one holding documents or arrays is mingo's.
    expect(compileFastMatch({ a: 1 })!({ a: [1, 2] })).toBe(true);
    expect(compileFastMatch({ a: { $ne: 1 } })!({ a: [1, 2] })).toBe(false);
    expect(compileFastMatch({ a: 1 })!({ a: [{ x: 1 }] })).toBeUndefined();
    expect(compileFastMatch({ a: 1 })!({ a: [[1]] })).toBeUndefined();
  });
});
