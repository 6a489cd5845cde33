/**
 * Applying an update to a document: operator updates (through mingo's updater, with $setOnInsert
 * and exact Decimal128/Long arithmetic added), replacements and aggregation-pipeline updates; and
 * building the document an upsert inserts, seeded from the filter's equality fields.
 */
import { Aggregator } from 'mingo/aggregator';
import { update as mingoUpdate } from 'mingo/updater';
import { ObjectId, type Document } from './bson';
import { compareValues, isNumeric, multiplyValues, sumValues, valuesEqual } from './bson-values';
import { cloneDoc, getPath, isPlainObject, setPath } from './documents';
import { MongoServerError } from './errors';
import { mingoOptions } from './mingo-context';

export type UpdateSpec = Document | Document[];

export function isOperatorUpdate(u: UpdateSpec): boolean {
  return !Array.isArray(u) && Object.keys(u).length > 0 && Object.keys(u).every((k) => k.startsWith('$'));
}

function validateUpdate(u: UpdateSpec): void {
  if (Array.isArray(u)) return;
  const keys = Object.keys(u);
  const ops = keys.filter((k) => k.startsWith('$'));
  if (ops.length && ops.length !== keys.length) {
    throw new MongoServerError('FailedToParse', 'Update document mixes update operators and plain fields');
  }
  for (const op of ops) {
    if (!isPlainObject(u[op])) {
      throw new MongoServerError(
        'FailedToParse',
        `Modifiers operate on fields but we found type ${typeof u[op]} instead. For example: {$mod: {<field>: ...}} not {${op}: ${JSON.stringify(u[op])}}`,
      );
    }
  }
  // Conflicting paths across operators (e.g. $set a and $inc a, or a and a.b): code 40.
  const paths: string[] = [];
  for (const op of ops) for (const p of Object.keys(u[op])) paths.push(p);
  if (u.$rename) paths.push(...Object.values(u.$rename as Record<string, string>));
  for (let i = 0; i < paths.length; i++) {
    for (let j = i + 1; j < paths.length; j++) {
      const [a, b] = [paths[i], paths[j]];
      if (a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`)) {
        throw new MongoServerError('ConflictingUpdateOperators', `Updating the path '${a}' would create a conflict at '${b}'`);
      }
    }
  }
}

/** $inc, $mul, $min, $max on Decimal128/Long operands or targets, done exactly. */
function applyExactNumeric(doc: Document, u: Document): Document {
  const rest: Document = { ...u };
  for (const op of ['$inc', '$mul', '$min', '$max'] as const) {
    const spec = u[op] as Record<string, unknown> | undefined;
    if (!spec) continue;
    const remaining: Record<string, unknown> = {};
    for (const [path, operand] of Object.entries(spec)) {
      const current = getPath(doc, path);
      const exact = path.includes('$') ? false : [operand, current].some((v) => isNumeric(v) && typeof v !== 'number');
      if (!exact) {
        remaining[path] = operand;
        continue;
      }
      if ((op === '$inc' || op === '$mul') && current !== undefined && current !== null && !isNumeric(current)) {
        throw new MongoServerError(
          'TypeMismatch',
          `Cannot apply ${op} to a value of non-numeric type. {_id: ${String(doc._id)}} has the field '${path}' of non-numeric type ${typeof current}`,
        );
      }
      let next: unknown;
      if (op === '$inc') next = current === undefined || current === null ? operand : sumValues([current, operand]);
      else if (op === '$mul') next = current === undefined || current === null ? multiplyValues(0, operand) : multiplyValues(current, operand);
      else if (op === '$min') next = current === undefined || compareValues(operand, current) < 0 ? operand : current;
      else next = current === undefined || compareValues(operand, current) > 0 ? operand : current;
      setPath(doc, path, next);
    }
    if (Object.keys(remaining).length) rest[op] = remaining;
    else delete rest[op];
  }
  return rest;
}

/**
 * The parent object of a plain path (no `$`, no numeric or empty segment) when every object on the
 * way is a plain object or missing; `create` makes the missing ones. Undefined: not plain (mingo decides).
 */
function plainParent(doc: Document, path: string, create: boolean): { parent?: Record<string, unknown>; last: string } | undefined {
  const parts = path.split('.');
  for (const p of parts) if (!p || p.includes('$') || /^\d+$/.test(p)) return undefined;
  let cur: unknown = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = (cur as Record<string, unknown>)[parts[i]];
    if (next === undefined) {
      if (!create) return { last: parts[parts.length - 1] };
      // Only now is anything created: every later segment is missing too.
      let made = cur as Record<string, unknown>;
      for (let j = i; j < parts.length - 1; j++) made = made[parts[j]] = {};
      return { parent: made, last: parts[parts.length - 1] };
    }
    if (!isPlainObject(next)) return undefined;
    cur = next;
  }
  return { parent: cur as Record<string, unknown>, last: parts[parts.length - 1] };
}

type PlainOp = ['$set' | '$unset' | '$inc' | '$push' | '$pull' | '$pullAll', string, unknown];

/** What `$push` appends when it is a plain append (a value, or `$each` with no other modifier); undefined when mingo must decide. */
function pushedValues(operand: unknown): unknown[] | undefined {
  if (!isPlainObject(operand)) return [operand];
  const keys = Object.keys(operand);
  if (!keys.some((k) => k.startsWith('$'))) return [operand];
  return keys.length === 1 && keys[0] === '$each' && Array.isArray(operand.$each) ? (operand.$each as unknown[]) : undefined;
}

/** The strings `$pull` (one string) or `$pullAll` (an array of strings) removes by equality; undefined when mingo must decide (conditions, other types). */
function pulledStrings(op: '$pull' | '$pullAll', operand: unknown): Set<string> | undefined {
  if (op === '$pull') return typeof operand === 'string' ? new Set([operand]) : undefined;
  return Array.isArray(operand) && operand.every((v) => typeof v === 'string') ? new Set(operand as string[]) : undefined;
}

/**
 * Whether `op` at `path` applies plainly to the value now there (numbers for $inc; arrays or nothing
 * for the array operators, which MongoDB refuses on anything else, where mingo would skip them).
 */
function plainOperand(op: PlainOp[0], path: string, operand: unknown, current: unknown): boolean {
  if (op === '$inc') return typeof operand === 'number' && (current === undefined || typeof current === 'number');
  if (op === '$push' || op === '$pull' || op === '$pullAll') {
    if (current !== undefined && !Array.isArray(current)) {
      const type = current === null ? 'null' : typeof current;
      throw new MongoServerError(
        'BadValue',
        op === '$push' ? `The field '${path}' must be an array but is of type ${type}` : `Cannot apply ${op} to a non-array value`,
      );
    }
    return (op === '$push' ? pushedValues(operand) : pulledStrings(op, operand)) !== undefined;
  }
  return true;
}

/**
 * Splits off the platform's common writes on plain paths through plain objects: $set, $unset, $inc
 * (JS numbers), $push (values, or `$each` alone) and $pull / $pullAll of strings, onto arrays or
 * nothing. They are applied directly (./applyPlain) without building a mingo context per update,
 * which costs more than the update itself (the stats cells' guarded `$push` of a transaction id and
 * its `$pullAll`). The rest goes to mingo, first: its filter (positional `$`) must see the
 * document before any change.
 */
function splitPlain(doc: Document, u: Document): { plain: PlainOp[]; rest: Document } {
  const rest: Document = { ...u };
  const plain: PlainOp[] = [];
  for (const op of ['$set', '$unset', '$inc', '$push', '$pull', '$pullAll'] as const) {
    const spec = u[op] as Record<string, unknown> | undefined;
    if (!spec) continue;
    const remaining: Record<string, unknown> = {};
    for (const [path, operand] of Object.entries(spec)) {
      const ok =
        plainParent(doc, path, false) !== undefined && plainOperand(op, path, operand, op === '$set' || op === '$unset' ? undefined : getPath(doc, path));
      if (ok) plain.push([op, path, operand]);
      else remaining[path] = operand;
    }
    if (Object.keys(remaining).length) rest[op] = remaining;
    else delete rest[op];
  }
  return { plain, rest };
}

/** Applies what splitPlain took (paths disjoint from the rest, so after it); answers what no longer applies plainly. */
function applyPlain(doc: Document, plain: PlainOp[]): Document {
  const left: Document = {};
  for (const [op, path, operand] of plain) {
    const at = plainParent(doc, path, op === '$set' || op === '$inc' || op === '$push');
    if (!at) {
      (left[op] ??= {})[path] = operand;
      continue;
    }
    if (!at.parent) continue; // $unset under a missing object: nothing to remove
    if (op === '$set') at.parent[at.last] = cloneDoc(operand);
    else if (op === '$unset') delete at.parent[at.last];
    else if (op === '$inc') at.parent[at.last] = ((at.parent[at.last] as number | undefined) ?? 0) + (operand as number);
    else if (op === '$push') {
      const arr = (at.parent[at.last] ??= []) as unknown[];
      for (const v of pushedValues(operand)!) arr.push(cloneDoc(v));
    } else {
      const arr = at.parent[at.last] as unknown[] | undefined;
      if (arr === undefined) continue;
      const pulled = pulledStrings(op, operand)!;
      at.parent[at.last] = arr.filter((v) => typeof v !== 'string' || !pulled.has(v));
    }
  }
  return left;
}

function mapMingoError(e: unknown): never {
  if (e instanceof MongoServerError) throw e;
  const msg = e instanceof Error ? e.message : String(e);
  if (/conflict/i.test(msg)) throw new MongoServerError('ConflictingUpdateOperators', msg);
  if (/immutable/i.test(msg)) throw new MongoServerError('ImmutableField', msg);
  throw new MongoServerError('BadValue', msg);
}

/**
 * Returns the updated copy of doc (doc itself is never changed). With inserting, $setOnInsert
 * applies as $set (the upsert case).
 */
export function applyUpdate(
  doc: Document,
  u: UpdateSpec,
  opts: { arrayFilters?: Document[]; filter?: Document; inserting?: boolean; variables?: Document } = {},
): Document {
  validateUpdate(u);
  let next: Document;
  if (Array.isArray(u)) {
    try {
      const [out] = new Aggregator(u, mingoOptions(opts.variables ? { variables: opts.variables } : {})).run([cloneDoc(doc)]) as Document[];
      next = out ?? {};
    } catch (e) {
      mapMingoError(e);
    }
  } else if (isOperatorUpdate(u)) {
    next = cloneDoc(doc);
    const ops: Document = { ...u };
    if (ops.$setOnInsert) {
      if (opts.inserting) ops.$set = { ...(ops.$set ?? {}), ...ops.$setOnInsert };
      delete ops.$setOnInsert;
    }
    const { plain, rest } = splitPlain(next, applyExactNumeric(next, ops));
    try {
      // The filter only resolves positional `$` paths (the engine matched the document already).
      const positional = Object.values(rest).some((spec) => isPlainObject(spec) && Object.keys(spec).some((k) => k.includes('$')));
      if (Object.keys(rest).length)
        mingoUpdate(next, rest, opts.arrayFilters ?? [], positional ? (opts.filter ?? {}) : {}, { cloneMode: 'none', queryOptions: mingoOptions() });
      const left = applyPlain(next, plain);
      if (Object.keys(left).length) mingoUpdate(next, left, [], {}, { cloneMode: 'none', queryOptions: mingoOptions() });
    } catch (e) {
      mapMingoError(e);
    }
  } else {
    if (u._id !== undefined && doc._id !== undefined && !valuesEqual(u._id, doc._id)) {
      throw new MongoServerError('ImmutableField', "After applying the update, the (immutable) field '_id' was found to have been altered");
    }
    next = { _id: doc._id, ...cloneDoc(u) };
    if (next._id === undefined) delete next._id;
  }
  if (doc._id !== undefined) {
    if (next._id === undefined) next = { _id: doc._id, ...next };
    else if (!valuesEqual(next._id, doc._id)) {
      throw new MongoServerError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
    } else if (Object.keys(next)[0] !== '_id') {
      const { _id, ...rest } = next;
      next = { _id, ...rest };
    }
  }
  return next;
}

/** The document an upsert starts from: the filter's equality fields (incl. inside $and). */
export function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  const visit = (f: Document) => {
    for (const [k, v] of Object.entries(f)) {
      if (k === '$and' && Array.isArray(v)) v.forEach((x) => isPlainObject(x) && visit(x));
      else if (k.startsWith('$')) continue;
      else if (isPlainObject(v) && Object.keys(v).some((x) => x.startsWith('$'))) {
        if ('$eq' in v) setPath(seed, k, cloneDoc(v.$eq));
      } else if (!(v instanceof RegExp)) setPath(seed, k, cloneDoc(v));
    }
  };
  visit(filter);
  return seed;
}

export function buildUpsert(filter: Document, u: UpdateSpec, arrayFilters?: Document[], variables?: Document): Document {
  let doc: Document;
  if (!Array.isArray(u) && !isOperatorUpdate(u)) {
    const seedId = upsertSeed(filter)._id;
    doc = cloneDoc(u);
    if (doc._id === undefined && seedId !== undefined) doc = { _id: seedId, ...doc };
  } else {
    doc = applyUpdate(upsertSeed(filter), u, { arrayFilters, filter, inserting: true, variables });
  }
  if (doc._id === undefined) doc = { _id: new ObjectId(), ...doc };
  return doc;
}
