/**
 * A native `$group` for the shapes reports use (mingo's general one costs several microseconds
 * per document): `_id` null, a field path, or an object of field paths and
 * `{$dateToString: {format: '%Y-%m-%d', date: '$field'}}` (UTC); accumulators `{$sum: 1}`,
 * `{$sum: <number>}` or `{$sum: '$field'}`, summed exactly by the same code as mingo's context.
 * Anything else returns undefined and goes through mingo.
 */
import type { Document } from 'bson';
import { keyString, sumValues } from './bson-values';

type KeyPart = (doc: Document) => unknown;

/** A field path read without splitting it on every document. */
function reader(path: string): (doc: Document) => unknown {
  const parts = path.split('.');
  if (parts.length === 1) return (doc) => doc[path];
  return (doc) => {
    let v: unknown = doc;
    for (const p of parts) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Document)[p];
    }
    return v;
  };
}

const FIELD = /^\$[A-Za-z_][A-Za-z0-9_.]*$/;

function keyPart(expr: unknown): KeyPart | undefined {
  if (typeof expr === 'string' && FIELD.test(expr)) {
    const read = reader(expr.slice(1));
    return (doc) => read(doc) ?? null;
  }
  if (expr && typeof expr === 'object' && Object.keys(expr).length === 1 && '$dateToString' in expr) {
    const spec = (expr as { $dateToString: Record<string, unknown> }).$dateToString;
    const keys = Object.keys(spec).sort().join(',');
    if (keys !== 'date,format' || spec.format !== '%Y-%m-%d' || typeof spec.date !== 'string' || !FIELD.test(spec.date)) return undefined;
    const read = reader(spec.date.slice(1));
    return (doc) => {
      const d = read(doc);
      return d instanceof Date ? d.toISOString().slice(0, 10) : null;
    };
  }
  return undefined;
}

export function nativeGroup(spec: Document, docs: Iterable<Document>): Document[] | undefined {
  const { _id: idExpr, ...accumulators } = spec;
  // The key as parts: a single expression (named '') or the fields of an object.
  let parts: Array<[string, KeyPart]>;
  let single = false;
  if (idExpr === null) parts = [];
  else if (typeof idExpr === 'string') {
    const part = keyPart(idExpr);
    if (!part) return undefined;
    parts = [['', part]];
    single = true;
  } else if (idExpr && typeof idExpr === 'object' && !Array.isArray(idExpr)) {
    parts = [];
    for (const [k, v] of Object.entries(idExpr as Document)) {
      const part = keyPart(v);
      if (!part || k.startsWith('$')) return undefined;
      parts.push([k, part]);
    }
  } else return undefined;

  const sums: Array<[string, (doc: Document) => unknown]> = [];
  for (const [name, acc] of Object.entries(accumulators)) {
    if (!acc || typeof acc !== 'object' || Object.keys(acc).length !== 1 || !('$sum' in acc)) return undefined;
    const arg = (acc as { $sum: unknown }).$sum;
    if (typeof arg === 'number') sums.push([name, () => arg]);
    else if (typeof arg === 'string' && FIELD.test(arg)) sums.push([name, reader(arg.slice(1))]);
    else return undefined;
  }

  const groups = new Map<string, { values: unknown[]; sums: unknown[][] }>();
  const n = parts.length;
  for (const doc of docs) {
    const values = new Array<unknown>(n);
    let k = '';
    for (let i = 0; i < n; i++) {
      values[i] = parts[i][1](doc);
      k += `${keyString(values[i])}\u0000`;
    }
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { values, sums: sums.map(() => []) }));
    for (let i = 0; i < sums.length; i++) g.sums[i].push(sums[i][1](doc));
  }
  return [...groups.values()].map((g) => {
    const out: Document = { _id: n === 0 ? null : single ? g.values[0] : Object.fromEntries(parts.map(([k], i) => [k, g.values[i]])) };
    sums.forEach(([name], i) => (out[name] = sumValues(g.sums[i])));
    return out;
  });
}
