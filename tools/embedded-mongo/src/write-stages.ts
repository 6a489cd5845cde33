/**
 * The aggregation stages that write (`$out`, `$merge`, the pipeline's last stage, into the same
 * database) and `collMod` (a TTL index's expireAfterSeconds). Whatever else they may be asked is
 * refused (./unsupported.ts), never ignored.
 */
import { Aggregator } from 'mingo/aggregator';
import { ObjectId, type Document } from './bson';
import { idKeyString, valuesEqual } from './bson-values';
import type { Change, Collection } from './collection';
import { cloneDoc, getPath, isPlainObject } from './documents';
import { MongoServerError } from './errors';
import { mingoOptions } from './mingo-context';

const notImplemented = (what: string) => new MongoServerError('CommandNotSupported', `${what} is not supported by the embedded engine`);

export interface WriteTarget {
  /** The target collection, created when missing. */
  collection(name: string): Collection;
}

/** The collection name a `$out` / `$merge` target names, in `db` only. */
function targetName(spec: unknown, db: string, stage: string): string {
  if (typeof spec === 'string' && spec) return spec;
  if (isPlainObject(spec) && typeof spec.coll === 'string') {
    if (spec.db !== undefined && spec.db !== db) throw notImplemented(`${stage} into another database`);
    return spec.coll;
  }
  throw new MongoServerError('FailedToParse', `${stage} needs a collection name`);
}

const withId = (doc: Document): Document => (doc._id === undefined ? { _id: new ObjectId(), ...doc } : doc);

/**
 * `$out`: the target's documents become the pipeline's output, all or nothing (a duplicate key
 * restores what was there); the target's indexes stay.
 */
export function runOut(spec: unknown, db: string, docs: Document[], target: WriteTarget): void {
  if (isPlainObject(spec) && spec.timeseries !== undefined) throw notImplemented('$out into a time series collection');
  const coll = target.collection(targetName(spec, db, '$out'));
  const before = [...coll.docs.values()];
  const clear = () => {
    for (const id of [...coll.docs.keys()]) coll.remove(id);
  };
  clear();
  try {
    for (const d of docs) coll.insert(withId(cloneDoc(d)));
  } catch (e) {
    clear();
    for (const d of before) coll.insert(d);
    throw e;
  }
}

const MERGE_OPTIONS = ['into', 'on', 'whenMatched', 'whenNotMatched', 'let'];

/** `$merge`: each output document is matched in the target on `on` and merged, replaced, kept, or failed; unmatched ones inserted, discarded or failed. */
export function runMerge(spec: unknown, db: string, docs: Document[], target: WriteTarget): void {
  const m: Document = typeof spec === 'string' ? { into: spec } : isPlainObject(spec) ? spec : {};
  for (const k of Object.keys(m)) if (!MERGE_OPTIONS.includes(k)) throw new MongoServerError('Location40415', `BSON field '$merge.${k}' is an unknown field.`);
  const coll = target.collection(targetName(m.into, db, '$merge'));
  const on: string[] = m.on === undefined ? ['_id'] : Array.isArray(m.on) ? (m.on as string[]) : [m.on as string];
  const whenMatched = m.whenMatched ?? 'merge';
  const whenNotMatched = m.whenNotMatched ?? 'insert';
  if (!['insert', 'discard', 'fail'].includes(whenNotMatched as string))
    throw new MongoServerError('BadValue', `$merge: whenNotMatched must be insert, discard or fail`);
  if (!Array.isArray(whenMatched) && !['merge', 'replace', 'keepExisting', 'fail'].includes(whenMatched as string))
    throw new MongoServerError('BadValue', `$merge: whenMatched must be merge, replace, keepExisting, fail or a pipeline`);
  if (!(on.length === 1 && on[0] === '_id')) {
    const unique = [...coll.indexes.values()].some(
      (i) => (i.spec.unique || i.name === '_id_') && !i.spec.partialFilterExpression && Object.keys(i.spec.key).sort().join() === [...on].sort().join(),
    );
    if (!unique) throw new MongoServerError('Location51183', 'Cannot find index to verify that join fields will be unique');
  }
  const vars = (m.let ?? { new: '$$ROOT' }) as Document;
  for (const raw of docs) {
    const doc = cloneDoc(raw);
    const key: Document = {};
    for (const f of on) {
      const v = getPath(doc, f);
      if (v === undefined || Array.isArray(v)) {
        if (f === '_id' && v === undefined) continue;
        throw new MongoServerError('Location51132', `$merge write error: 'on' field '${f}' cannot be missing, null or an array`);
      }
      key[f] = v;
    }
    const matches = Object.keys(key).length === on.length ? coll.find(key, { limit: 2 }) : [];
    if (matches.length > 1) throw new MongoServerError('Location51183', "$merge: more than one document matches the 'on' fields");
    const existing = matches[0];
    if (!existing) {
      if (whenNotMatched === 'discard') continue;
      if (whenNotMatched === 'fail')
        throw new MongoServerError(
          'Location13113',
          '$merge could not find a matching document in the target collection for at least one document in the source collection',
        );
      coll.insert(withId(doc));
      continue;
    }
    const id = idKeyString(existing._id);
    const idOf = (d: Document) => Object.keys(d)[0] === '_id';
    if (whenMatched === 'keepExisting') continue;
    if (whenMatched === 'fail')
      throw new MongoServerError(
        'DuplicateKey',
        `E11000 duplicate key error: $merge found a document matching ${JSON.stringify(key)} with whenMatched: 'fail'`,
      );
    let next: Document;
    if (whenMatched === 'replace') next = { ...doc, _id: existing._id };
    else if (whenMatched === 'merge') next = { ...existing, ...doc, _id: existing._id };
    else {
      // A pipeline over the existing document, with $$new the output document (or the given `let`).
      const variables: Document = {};
      for (const [k, v] of Object.entries(vars))
        variables[k] = v === '$$ROOT' ? doc : typeof v === 'string' && v.startsWith('$') ? getPath(doc, v.slice(1)) : v;
      const [out] = new Aggregator(whenMatched as Document[], mingoOptions({ variables })).run([cloneDoc(existing)]) as Document[];
      next = { ...(out ?? {}), _id: existing._id };
    }
    if (doc._id !== undefined && !valuesEqual(doc._id, existing._id))
      throw new MongoServerError('ImmutableField', '$merge failed to update the matching document, did you attempt to modify the _id or the shard key?');
    if (!idOf(next)) {
      const { _id, ...rest } = next;
      next = { _id, ...rest };
    }
    coll.replace(id, next);
  }
}

/**
 * `collMod` with `index: {name | keyPattern, expireAfterSeconds}`: changes a TTL index in place (the
 * journal records it as the index dropped and created again). Anything else is refused.
 */
export function runCollMod(coll: Collection | undefined, cmd: Document, sink: (c: Change) => void): Document {
  const GENERIC = new Set(['collMod', 'index', 'writeConcern', 'comment', 'lsid', 'txnNumber', 'apiVersion', 'apiStrict', 'apiDeprecationErrors']);
  for (const k of Object.keys(cmd)) if (!GENERIC.has(k) && !k.startsWith('$')) throw notImplemented(`collMod: the '${k}' option`);
  if (!coll) throw new MongoServerError('NamespaceNotFound', `ns does not exist`);
  if (cmd.index === undefined) return { ok: 1 };
  const spec = cmd.index as Document;
  for (const k of Object.keys(spec)) if (!['name', 'keyPattern', 'expireAfterSeconds'].includes(k)) throw notImplemented(`collMod: the index option '${k}'`);
  const index = coll.indexNamed(typeof spec.name === 'string' ? spec.name : (spec.keyPattern as Document));
  if (!index) throw new MongoServerError('IndexNotFound', `cannot find index ${JSON.stringify(spec.name ?? spec.keyPattern)} for ns ${coll.ns}`);
  if (spec.expireAfterSeconds === undefined) return { ok: 1 };
  const old = index.spec.expireAfterSeconds;
  if (old === undefined) throw new MongoServerError('InvalidOptions', 'no expireAfterSeconds field to update');
  const next = Number(spec.expireAfterSeconds);
  if (!Number.isInteger(next) || next < 0) throw new MongoServerError('InvalidOptions', 'expireAfterSeconds must be a non-negative integer');
  index.spec.expireAfterSeconds = next;
  sink({ op: 'dropIndex', db: coll.db, coll: coll.name, name: index.name });
  sink({ op: 'createIndex', db: coll.db, coll: coll.name, spec: { ...index.spec } });
  return { expireAfterSeconds_old: old, expireAfterSeconds_new: next, ok: 1 };
}
