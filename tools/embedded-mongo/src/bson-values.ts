/**
 * MongoDB's value semantics for the BSON values the engine stores: canonical cross-type order,
 * equality, and exact arithmetic on Int32/Double (JS numbers), Long and Decimal128.
 * mingo compares Decimal128 and Long wrongly; every comparison the engine makes goes through here.
 */
import { Binary, BSONRegExp, Decimal128, Long, MaxKey, MinKey, ObjectId, Timestamp } from './bson';

/** MongoDB's canonical type order (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/). */
export function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 2;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 3;
    case 'string':
      return 4;
    case 'boolean':
      return 9;
    case 'object':
      break;
    default:
      return 5;
  }
  if (Array.isArray(v)) return 6;
  if (v instanceof Date) return 10;
  if (v instanceof RegExp || v instanceof BSONRegExp) return 12;
  const bt = (v as { _bsontype?: string })._bsontype;
  switch (bt) {
    case 'MinKey':
      return 1;
    case 'Long':
    case 'Decimal128':
    case 'Int32':
    case 'Double':
      return 3;
    case 'BSONSymbol':
      return 4;
    case 'Binary':
      return 7;
    case 'ObjectId':
      return 8;
    case 'Timestamp':
      return 11;
    case 'MaxKey':
      return 13;
    default:
      return 5;
  }
}

export function isNumeric(v: unknown): boolean {
  if (typeof v === 'number') return true;
  const bt = (v as { _bsontype?: string } | null)?._bsontype;
  return bt === 'Long' || bt === 'Decimal128' || bt === 'Int32' || bt === 'Double';
}

/** An exact decimal: coef x 10^-scale, or a special value. */
interface Exact {
  kind: 'finite' | 'nan' | 'inf' | '-inf';
  coef: bigint;
  scale: number;
}

const NAN: Exact = { kind: 'nan', coef: 0n, scale: 0 };

function parseDecimalString(s: string): Exact {
  const t = s.trim();
  if (/^[+-]?nan$/i.test(t)) return NAN;
  if (/^\+?inf(inity)?$/i.test(t)) return { kind: 'inf', coef: 0n, scale: 0 };
  if (/^-inf(inity)?$/i.test(t)) return { kind: '-inf', coef: 0n, scale: 0 };
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m) return NAN;
  const [, sign, int = '', frac = '', exp = '0'] = m;
  let scale = frac.length - Number(exp);
  let coef = BigInt(int + frac || '0');
  if (scale < 0) {
    coef *= 10n ** BigInt(-scale);
    scale = 0;
  }
  if (sign === '-') coef = -coef;
  return { kind: 'finite', coef, scale };
}

/** Parsed exact values of Long/Decimal128 objects (immutable, so safe to cache). */
const exactCache = new WeakMap<object, Exact>();

export function toExact(v: unknown): Exact {
  if (typeof v === 'object' && v !== null) {
    let e = exactCache.get(v);
    if (!e) exactCache.set(v, (e = objectToExact(v)));
    return e;
  }
  return primitiveToExact(v);
}

function primitiveToExact(v: unknown): Exact {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return NAN;
    if (v === Infinity) return { kind: 'inf', coef: 0n, scale: 0 };
    if (v === -Infinity) return { kind: '-inf', coef: 0n, scale: 0 };
    return parseDecimalString(String(v));
  }
  if (typeof v === 'bigint') return { kind: 'finite', coef: v, scale: 0 };
  return NAN;
}

function objectToExact(v: object): Exact {
  const bt = (v as { _bsontype?: string })._bsontype;
  if (bt === 'Long') return { kind: 'finite', coef: BigInt((v as Long).toString()), scale: 0 };
  if (bt === 'Decimal128') return parseDecimalString((v as Decimal128).toString());
  if (bt === 'Int32' || bt === 'Double') return primitiveToExact((v as { value: number }).value);
  return NAN;
}

function align(a: Exact, b: Exact): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.coef * 10n ** BigInt(scale - a.scale), b.coef * 10n ** BigInt(scale - b.scale), scale];
}

/** nan < -inf < finite < inf (a plain function: no closure per comparison on the hot path). */
function exactRank(e: Exact): number {
  return e.kind === 'nan' ? 0 : e.kind === '-inf' ? 1 : e.kind === 'finite' ? 2 : 3;
}

function cmpExact(a: Exact, b: Exact): number {
  const ra = exactRank(a);
  const rb = exactRank(b);
  if (ra !== rb || ra !== 2) return Math.sign(ra - rb);
  if (a.scale === b.scale) return a.coef < b.coef ? -1 : a.coef > b.coef ? 1 : 0;
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareNumbers(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : -1;
    if (Number.isNaN(b)) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return cmpExact(toExact(a), toExact(b));
}

function exactToString(e: Exact): string {
  if (e.kind === 'nan') return 'NaN';
  if (e.kind === 'inf') return 'Infinity';
  if (e.kind === '-inf') return '-Infinity';
  const neg = e.coef < 0n;
  let digits = (neg ? -e.coef : e.coef).toString();
  if (e.scale > 0) {
    digits = digits.padStart(e.scale + 1, '0');
    digits = `${digits.slice(0, digits.length - e.scale)}.${digits.slice(digits.length - e.scale)}`;
  }
  return (neg ? '-' : '') + digits;
}

function addExact(a: Exact, b: Exact): Exact {
  if (a.kind === 'nan' || b.kind === 'nan') return NAN;
  if (a.kind !== 'finite' || b.kind !== 'finite') {
    if (a.kind !== 'finite' && b.kind !== 'finite' && a.kind !== b.kind) return NAN;
    return a.kind !== 'finite' ? a : b;
  }
  const [x, y, scale] = align(a, b);
  return { kind: 'finite', coef: x + y, scale };
}

function mulExact(a: Exact, b: Exact): Exact {
  if (a.kind === 'nan' || b.kind === 'nan') return NAN;
  if (a.kind !== 'finite' || b.kind !== 'finite') return NAN;
  return { kind: 'finite', coef: a.coef * b.coef, scale: a.scale + b.scale };
}

type NumKind = 'int' | 'long' | 'double' | 'decimal';

function kindOf(v: unknown): NumKind {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) <= 0x7fffffff ? 'int' : 'double';
  const bt = (v as { _bsontype?: string })._bsontype;
  if (bt === 'Long') return 'long';
  if (bt === 'Decimal128') return 'decimal';
  if (bt === 'Int32') return 'int';
  return 'double';
}

const KIND_ORDER: Record<NumKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

function fromExact(e: Exact, kind: NumKind): unknown {
  if (kind === 'decimal') return Decimal128.fromStringWithRounding(exactToString(e));
  if (kind === 'double') return Number(exactToString(e));
  if (e.kind !== 'finite') return Number(exactToString(e));
  // Integer kinds: promote on overflow as MongoDB does (int -> long -> double).
  const value = e.scale === 0 ? e.coef : e.coef / 10n ** BigInt(e.scale);
  if (kind === 'int' && value >= -2147483648n && value <= 2147483647n) return Number(value);
  if (value >= INT64_MIN && value <= INT64_MAX) return Long.fromBigInt(value);
  return Number(value);
}

/** MongoDB's numeric result type for arithmetic over operands: the widest of them. */
function widest(values: unknown[]): NumKind {
  let k: NumKind = 'int';
  for (const v of values) if (KIND_ORDER[kindOf(v)] > KIND_ORDER[k]) k = kindOf(v);
  return k;
}

/** Exact sum; non-numeric values are ignored ($sum semantics). */
export function sumValues(values: unknown[]): unknown {
  const nums = values.filter(isNumeric);
  if (nums.length === 0) return 0;
  if (nums.every((n) => typeof n === 'number')) {
    // Plain doubles and ints: JS addition is what MongoDB does for doubles.
    const s = (nums as number[]).reduce((x, y) => x + y, 0);
    return s;
  }
  let acc: Exact = { kind: 'finite', coef: 0n, scale: 0 };
  for (const n of nums) acc = addExact(acc, toExact(n));
  return fromExact(acc, widest(nums));
}

export function multiplyValues(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  return fromExact(mulExact(toExact(a), toExact(b)), widest([a, b]));
}

export function averageValues(values: unknown[]): unknown {
  const nums = values.filter(isNumeric);
  if (nums.length === 0) return null;
  const sum = sumValues(nums);
  if (kindOf(sum) === 'decimal') {
    const e = toExact(sum);
    if (e.kind !== 'finite') return sum;
    // 34 significant digits are what Decimal128 holds.
    const scaled = (e.coef * 10n ** 34n) / BigInt(nums.length);
    return Decimal128.fromStringWithRounding(exactToString({ kind: 'finite', coef: scaled, scale: e.scale + 34 }));
  }
  return Number(exactToString(toExact(sum))) / nums.length;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length === 0 ? 0 : a.length < b.length ? -1 : 1;
}

function cmpPrim<T extends string | number | boolean>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total order of BSON values as MongoDB sorts them (no collation). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 1:
    case 2:
    case 13:
      return 0;
    case 3:
      return compareNumbers(a, b);
    case 4:
      return cmpPrim(String(a), String(b));
    case 5:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
    case 6: {
      const xs = a as unknown[];
      const ys = b as unknown[];
      const n = Math.min(xs.length, ys.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(xs[i], ys[i]);
        if (c) return c;
      }
      return cmpPrim(xs.length, ys.length);
    }
    case 7: {
      const x = a as Binary;
      const y = b as Binary;
      // MongoDB: length first, then subtype, then bytes.
      if (x.position !== y.position) return x.position < y.position ? -1 : 1;
      if (x.sub_type !== y.sub_type) return x.sub_type < y.sub_type ? -1 : 1;
      return compareBytes(x.buffer.subarray(0, x.position), y.buffer.subarray(0, y.position));
    }
    case 8:
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case 9:
      return cmpPrim(a as boolean, b as boolean);
    case 10:
      return cmpPrim((a as Date).getTime(), (b as Date).getTime());
    case 11: {
      const x = a as Timestamp;
      const y = b as Timestamp;
      return x.compare(y);
    }
    case 12: {
      const src = (r: unknown) => (r instanceof RegExp ? r.source : (r as BSONRegExp).pattern);
      const fl = (r: unknown) => (r instanceof RegExp ? r.flags : (r as BSONRegExp).options);
      return cmpPrim(src(a), src(b)) || cmpPrim(fl(a), fl(b));
    }
    default:
      return 0;
  }
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const t = typeRank(a[ka[i]]) - typeRank(b[kb[i]]);
    if (t) return t < 0 ? -1 : 1;
    const k = cmpPrim(ka[i], kb[i]);
    if (k) return k;
    const v = compareValues(a[ka[i]], b[kb[i]]);
    if (v) return v;
  }
  return cmpPrim(ka.length, kb.length);
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (typeRank(a) !== typeRank(b)) return false;
  return compareValues(a, b) === 0;
}

/**
 * The key a stored document is known by (the collection's map, index entries): its _id's
 * keyString, or a string _id itself when it cannot be taken for one (every keyString starts with
 * a digit). A string _id is then one string, shared by the document and its index entries, not
 * a second copy with a prefix (about 100 bytes per document).
 */
export function idKeyString(id: unknown): string {
  if (typeof id === 'string') {
    const c = id.charCodeAt(0);
    if (!(c >= 48 && c <= 57)) return id;
  }
  return keyString(id);
}

/**
 * A string that is equal for two values exactly when valuesEqual holds: used as the key of
 * equality indexes and unique constraints. Numbers of every BSON type share one normal form.
 */
export function keyString(v: unknown): string {
  // The common case without exact decimal arithmetic: a safe integer is its own canonical form.
  if (typeof v === 'number' && Number.isSafeInteger(v)) return `3:${v === 0 ? 0 : v}e-0`;
  const r = typeRank(v);
  switch (r) {
    case 1:
    case 2:
    case 13:
      return `${r}`;
    case 3: {
      const e = toExact(v);
      if (e.kind !== 'finite') return `3:${e.kind}`;
      let { coef, scale } = e;
      while (scale > 0 && coef % 10n === 0n) {
        coef /= 10n;
        scale--;
      }
      return `3:${coef}e-${scale}`;
    }
    case 4:
      return `4:${String(v)}`;
    case 5: {
      const o = v as Record<string, unknown>;
      return `5:{${Object.keys(o)
        .map((k) => `${JSON.stringify(k)}:${keyString(o[k])}`)
        .join(',')}}`;
    }
    case 6:
      return `6:[${(v as unknown[]).map(keyString).join(',')}]`;
    case 7: {
      const x = v as Binary;
      return `7:${x.sub_type}:${Buffer.from(x.buffer.subarray(0, x.position)).toString('base64')}`;
    }
    case 8:
      return `8:${(v as ObjectId).toHexString()}`;
    case 9:
      return `9:${v}`;
    case 10:
      return `10:${(v as Date).getTime()}`;
    case 11:
      return `11:${(v as Timestamp).toString()}`;
    case 12:
      return `12:${String(v)}`;
    default:
      return `${r}:${String(v)}`;
  }
}

export { Decimal128, Long, MaxKey, MinKey };
