/**
 * HasOffers' report parameters: `filters[Field][conditional]` and `[values]`, `sort[Field]`,
 * `limit`/`page`, parsed and checked (400 in HasOffers' envelope), and a filter as a test of one
 * value (rows built in memory).
 */
import { Apiv3Error, type Params } from './params';

export type Value = string | number | null;

export type Condition = (v: Value) => boolean;

const asNumber = (v: Value) => (typeof v === 'number' ? v : v === null ? NaN : Number(v));
export const compare = (a: Value, b: string) =>
  Number.isFinite(asNumber(a)) && Number.isFinite(Number(b)) ? asNumber(a) - Number(b) : String(a ?? '').localeCompare(b);
export const likePattern = (s: string) =>
  new RegExp(
    `^${s
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/%/g, '.*')
      .replace(/_/g, '.')}$`,
    'i',
  );

/** One parsed filter: `filters[Field][conditional]=…&filters[Field][values][]=…`. */
export interface FilterSpec {
  field: string;
  conditional: string;
  values: string[];
  /** values[0]: every conditional has one (checked when parsed). */
  first: string;
  /** values[1] (BETWEEN's upper bound, checked when parsed); else values[0]. */
  second: string;
}

const CONDITIONALS = [
  'EQUAL_TO',
  'NOT_EQUAL_TO',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL_TO',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL_TO',
  'BETWEEN',
  'LIKE',
  'NOT_LIKE',
  'NULL',
  'NOT_NULL',
];
const NEEDS: Record<string, number> = { BETWEEN: 2, NULL: 0, NOT_NULL: 0 };

/** `filters[Field][conditional]=…&filters[Field][values][]=…` (or `filters[Field]=value`), checked. */
export function filterSpecs(p: Params, known: readonly string[]): FilterSpec[] {
  const raw = p.filters;
  if (raw === undefined) return [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Apiv3Error(400, 'filters must be filters[Field][conditional] and filters[Field][values]');
  const out: FilterSpec[] = [];
  for (const [field, spec] of Object.entries(raw as Record<string, unknown>)) {
    if (field === 'OR' || field === 'AND') throw new Apiv3Error(400, `filters[${field}] is not supported`);
    if (!known.includes(field)) throw new Apiv3Error(400, `Unknown filter field: ${field}`);
    const s = typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as Record<string, unknown>) : { conditional: 'EQUAL_TO', values: spec };
    const conditional = typeof s.conditional === 'string' ? s.conditional.toUpperCase() : 'EQUAL_TO';
    const valuesRaw = s.values;
    const values = (
      Array.isArray(valuesRaw)
        ? valuesRaw
        : valuesRaw === undefined
          ? []
          : typeof valuesRaw === 'object' && valuesRaw !== null
            ? Object.values(valuesRaw)
            : [valuesRaw]
    )
      .map((v) => {
        if (typeof v !== 'string') throw new Apiv3Error(400, `filters[${field}][values] must be single values`);
        return v;
      })
      .slice(0, 1000);
    if (!CONDITIONALS.includes(conditional)) throw new Apiv3Error(400, `Unknown conditional for filters[${field}]: ${conditional}`);
    const n = NEEDS[conditional] ?? 1;
    if (values.length < n) throw new Apiv3Error(400, `filters[${field}] ${conditional} needs ${n === 1 ? 'a value' : `${n} values`}`);
    const [first, second = first] = values as [string, ...string[]];
    out.push({ field, conditional, values, first, second });
  }
  return out;
}

/** A filter as a test of one row's value (rows built in memory: getStats' groups, and getConversions' small value sets). */
export function testOf({ conditional, values, first, second }: FilterSpec): Condition {
  switch (conditional) {
    case 'EQUAL_TO':
      return (v) => values.some((x) => compare(v, x) === 0);
    case 'NOT_EQUAL_TO':
      return (v) => values.every((x) => compare(v, x) !== 0);
    case 'LESS_THAN':
      return (v) => compare(v, first) < 0;
    case 'LESS_THAN_OR_EQUAL_TO':
      return (v) => compare(v, first) <= 0;
    case 'GREATER_THAN':
      return (v) => compare(v, first) > 0;
    case 'GREATER_THAN_OR_EQUAL_TO':
      return (v) => compare(v, first) >= 0;
    case 'BETWEEN':
      return (v) => compare(v, first) >= 0 && compare(v, second) <= 0;
    case 'LIKE':
      return (v) => values.some((x) => likePattern(x).test(String(v ?? '')));
    case 'NOT_LIKE':
      return (v) => values.every((x) => !likePattern(x).test(String(v ?? '')));
    case 'NULL':
      return (v) => v === null || v === '';
    default:
      return (v) => v !== null && v !== '';
  }
}

export function filtersOf(p: Params, known: readonly string[]): Array<{ field: string; test: Condition }> {
  return filterSpecs(p, known).map((s) => ({ field: s.field, test: testOf(s) }));
}

export function sortOf(p: Params, known: readonly string[]): Array<[string, 1 | -1]> {
  const raw = p.sort;
  if (raw === undefined) return [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Apiv3Error(400, 'sort must be sort[Field]=asc|desc');
  return Object.entries(raw as Record<string, unknown>).map(([field, dir]) => {
    if (!known.includes(field)) throw new Apiv3Error(400, `Unknown sort field: ${field}`);
    const d = typeof dir === 'string' ? dir.toLowerCase() : '';
    if (d !== 'asc' && d !== 'desc') throw new Apiv3Error(400, `sort[${field}] must be asc or desc`);
    return [field, d === 'asc' ? 1 : -1];
  });
}

export function pagingOf(p: Params): { limit: number; page: number } {
  const int = (name: string, def: number, max: number) => {
    const v = p[name];
    if (v === undefined || v === '') return def;
    const n = typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > max) throw new Apiv3Error(400, `${name} must be an integer from 1 to ${max}`);
    return n;
  };
  return { limit: int('limit', 50, 10_000), page: int('page', 1, 1_000_000) };
}
