/** Plain-document helpers: cloning that keeps BSON values, path get/set, BSON size. */
import { calculateObjectSize, type Document } from './bson';
import { MAX_BSON_SIZE } from './wire';
import { MongoServerError } from './errors';

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
}

/** Deep copy of objects and arrays; BSON values (immutable) and Dates are shared or copied cheaply. */
export function cloneDoc<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneDoc) as T;
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = cloneDoc(v[k]);
    return out as T;
  }
  return v;
}

/** All values at a dotted path, descending through arrays (MongoDB's multikey semantics). */
export function valuesAtPath(doc: unknown, path: string): unknown[] {
  // The common case (a top-level field of a document) without splitting or recursion: it runs
  // for every index of every stored document.
  if (path.indexOf('.') < 0 && isPlainObject(doc)) {
    const v = doc[path];
    if (!Array.isArray(v)) return [v];
    return v.length ? v.slice() : [undefined];
  }
  const out: unknown[] = [];
  walkPath(doc, path.split('.'), 0, out);
  return out;
}

function walkPath(v: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    if (Array.isArray(v)) {
      if (v.length === 0) out.push(undefined);
      else out.push(...v);
    } else out.push(v);
    return;
  }
  if (Array.isArray(v)) {
    const idx = /^\d+$/.test(parts[i]) ? Number(parts[i]) : -1;
    if (idx >= 0) walkPath(v[idx], parts, i + 1, out);
    else if (v.length === 0) out.push(undefined);
    else for (const x of v) walkPath(x, parts, i, out);
    return;
  }
  if (isPlainObject(v)) walkPath(v[parts[i]], parts, i + 1, out);
  else out.push(undefined);
}

export function getPath(doc: Record<string, unknown>, path: string): unknown {
  let v: unknown = doc;
  for (const p of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

export function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: Record<string, unknown> = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = cur[parts[i]];
    if (next === null || typeof next !== 'object') cur[parts[i]] = {};
    cur = cur[parts[i]] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

export function assertDocumentSize(doc: Document): void {
  const size = calculateObjectSize(doc);
  if (size > MAX_BSON_SIZE) {
    throw new MongoServerError('BSONObjectTooLarge', `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_SIZE}`);
  }
}
