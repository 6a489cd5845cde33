/**
 * A collection: documents in insertion order keyed by their _id, the indexes over them, and the
 * read path (plan, filter, sort, skip, limit). Every write goes through insert/replace/remove,
 * which keep all indexes and unique constraints consistent or change nothing.
 */
import { Query } from 'mingo/query';
import { ObjectId, UUID, serialize, type Document } from './bson';
import { compareValues, idKeyString } from './bson-values';
import { assertDocumentSize, getPath } from './documents';
import { MongoServerError } from './errors';
import { IndexStore, type IndexSpec } from './index-store';
import { mingoOptions, sortDocuments } from './mingo-context';
import { compileFastMatch } from './fast-match';
import { choosePlan, type Plan } from './planner';
import { checkIdForStorage } from './unsupported';
import { DocumentStore, encodedCopy, FieldNames, ownBuffers, peekFields, type Encoded } from './stored-docs';

export interface ReadOptions {
  sort?: Record<string, number>;
  skip?: number;
  limit?: number;
  /** maxTimeMS: past it, the read fails with MaxTimeMSExpired (50). */
  budget?: TimeBudget;
  /** The command's `let` variables ($$name in $expr). */
  variables?: Document;
  /** Filled in with what the read did (explain's executionStats). */
  stats?: ReadStats;
}

/** What one read did: its plan, the index keys and documents it examined, what it returned. */
export interface ReadStats {
  plan?: Plan;
  /** Whether the documents had to be sorted in memory. */
  sortedInMemory: boolean;
  keysExamined: number;
  docsExamined: number;
  nReturned: number;
}

const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/**
 * A change to stored state, as the journal records it. Documents are whole (a put is an insert
 * or a replacement), so replaying a change twice gives the same state.
 */
export type Change =
  | { op: 'createCollection'; db: string; coll: string; options: Document }
  | { op: 'dropCollection'; db: string; coll: string }
  | { op: 'dropDatabase'; db: string }
  | { op: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { op: 'dropIndex'; db: string; coll: string; name: string }
  | { op: 'put'; db: string; coll: string; doc: Document }
  | { op: 'delete'; db: string; coll: string; id: unknown };

export type ChangeSink = (change: Change) => void;

/** The filter as a test: the compiled fast path where it decides, mingo otherwise (built lazily). */
function matcher(filter: Document, variables?: Document): { test(doc: Document): boolean } {
  const fast = compileFastMatch(filter);
  const options = () => mingoOptions(variables ? { variables } : {});
  // Filters the fast path does not take are validated at once (unknown operators are errors).
  if (!fast) return new Query(filter, options());
  let mingo: Query | undefined;
  const slow = (doc: Document) => (mingo ??= new Query(filter, options())).test(doc);
  return {
    test: (doc) => {
      const r = fast(doc);
      return r === undefined ? slow(doc) : r;
    },
  };
}

/**
 * MongoDB's maxTimeMS: a cumulative limit on the time spent processing a read, its first batch
 * and a cursor's later ones; the clock stops while a cursor waits for the client's next getMore.
 */
export class TimeBudget {
  private resumedAt = Date.now();
  constructor(private remainingMs: number) {}
  resume(): void {
    this.resumedAt = Date.now();
  }
  pause(): void {
    this.remainingMs -= Date.now() - this.resumedAt;
  }
  get expired(): boolean {
    return Date.now() - this.resumedAt > this.remainingMs;
  }
}

/** Checks the budget every 256 tested documents. */
function withDeadline(m: { test(doc: Document): boolean }, budget: TimeBudget | undefined): { test(doc: Document): boolean } {
  if (budget === undefined) return m;
  let n = 0;
  return {
    test: (doc) => {
      if ((++n & 255) === 0 && budget.expired) throw new MongoServerError('MaxTimeMSExpired', 'operation exceeded time limit');
      return m.test(doc);
    },
  };
}

export class Collection {
  readonly uuid = new UUID();
  readonly docs = new DocumentStore();
  readonly indexes = new Map<string, IndexStore>();

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document = {},
    /** Told of every change after it is applied (the journal of a durable engine). */
    private readonly sink?: ChangeSink,
  ) {
    this.indexes.set('_id_', new IndexStore(ID_INDEX));
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  static idKey(doc: Document): string {
    return idKeyString(doc._id);
  }

  get(id: string): Document | undefined {
    return this.docs.get(id);
  }

  insert(doc: Document): void {
    assertDocumentSize(doc);
    checkIdForStorage(doc._id);
    const id = Collection.idKey(doc);
    if (this.docs.has(id)) this.indexes.get('_id_')!.checkUnique(doc, '\u0001', this.ns);
    // A string or ObjectId _id has one key string per value: the check above decided. Numbers
    // of different types can be equal (1 and NumberLong(1)): the index compares them.
    const canonicalId = typeof doc._id === 'string' || doc._id instanceof ObjectId;
    for (const index of this.indexes.values()) if (!(canonicalId && index.name === '_id_')) index.checkUnique(doc, id, this.ns);
    // Kept as its BSON until something reads it (./stored-docs.ts): a document written and seldom
    // read (a low-traffic account's click bucket, an event, an audit entry) costs its bytes, a
    // fraction of its decoded objects.
    this.docs.set(id, encodedCopy(serialize(doc)));
    for (const index of this.indexes.values()) index.add(doc, id);
    this.sink?.({ op: 'put', db: this.db, coll: this.name, doc });
  }

  /** Replaces the stored document with the same _id; all constraints checked before any change. */
  replace(id: string, next: Document): void {
    assertDocumentSize(next);
    checkIdForStorage(next._id);
    for (const index of this.indexes.values()) index.checkUnique(next, id, this.ns);
    const prev = this.docs.get(id);
    if (!prev) return this.insert(next);
    ownBuffers(next);
    for (const index of this.indexes.values()) {
      if (index.sameKeys(prev, next)) continue;
      index.remove(prev, id);
      index.add(next, id);
    }
    this.docs.set(id, next);
    this.sink?.({ op: 'put', db: this.db, coll: this.name, doc: next });
  }

  remove(id: string): boolean {
    const doc = this.docs.get(id);
    if (!doc) return false;
    this.docs.delete(id);
    for (const index of this.indexes.values()) index.remove(doc, id);
    this.sink?.({ op: 'delete', db: this.db, coll: this.name, id: doc._id });
    return true;
  }

  /**
   * Recovery: stores a document the engine accepted before (insert, or replace the one with the
   * same _id), without re-checking its size or unique keys and without telling the journal.
   */
  load(doc: Document): void {
    const id = Collection.idKey(doc);
    const prev = this.docs.get(id);
    for (const index of this.indexes.values()) {
      if (prev) {
        index.remove(prev, id);
        index.add(doc, id);
      } else index.stage(doc, id);
    }
    this.docs.set(id, doc);
  }

  /**
   * Recovery from a snapshot: keeps the document encoded and stages its index entries from the
   * fields the indexes read (decoded alone). A document whose indexed fields are not plain
   * top-level scalars, or that replaces one already loaded, is decoded and loaded whole.
   */
  loadEncoded(enc: Encoded): void {
    const names = this.peekable();
    const fields = names && peekFields(enc, names);
    if (!fields || fields._id === undefined) return this.load(enc.decode());
    const id = Collection.idKey(fields);
    if (this.docs.has(id)) return this.load(enc.decode());
    this.docs.set(id, enc);
    for (const index of this.indexes.values()) index.stage(fields, id);
  }

  /** The top-level fields every index reads (with _id), or none when an index needs a whole document. */
  private peekable(): FieldNames | undefined {
    if (!this.peekCache) this.peekCache = { names: this.peekFieldsOfIndexes() };
    return this.peekCache.names;
  }

  /** peekable(), until an index is created or dropped. */
  private peekCache?: { names: FieldNames | undefined };

  private peekFieldsOfIndexes(): FieldNames | undefined {
    const names = ['_id'];
    for (const index of this.indexes.values()) {
      if (!index.complete) return undefined;
      for (const [path] of index.fields) {
        if (path.includes('.')) return undefined;
        names.push(path);
      }
    }
    return new FieldNames(names);
  }

  /** Matching documents, in sort order (or natural order), after skip and limit. */
  find(filter: Document = {}, opts: ReadOptions = {}): Document[] {
    return [...this.scan(filter, opts)];
  }

  /**
   * The same documents as find, produced as they are read: a plan that gives the final order
   * (an index walk serving the sort, merged walks, or no sort) reads no further than the consumer
   * asks, so a cursor holds its position, not its result. An in-memory sort is the one blocking
   * step: it collects the matches (references to the stored documents) first. Writes between two
   * reads are seen as MongoDB's cursors see them: a document is read as it is when reached.
   */
  *scan(filter: Document = {}, opts: ReadOptions = {}): Generator<Document> {
    const query = withDeadline(matcher(filter, opts.variables), opts.budget);
    const sortFields = Object.entries(opts.sort ?? {}).map(([f, d]) => [f, Number(d) < 0 ? -1 : 1] as [string, number]);
    const skip = opts.skip ?? 0;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const plan = this.byIdPlan(filter) ?? choosePlan([...this.indexes.values()], filter, sortFields, limit ? skip + limit : 0);
    const stats = opts.stats;
    const served = plan.kind === 'merge' || (plan.kind === 'walk' && plan.servesSort);
    if (stats) {
      stats.plan = plan;
      stats.sortedInMemory = sortFields.length > 0 && !served;
    }
    let matches: Iterable<Document>;
    if (plan.kind === 'walk') matches = this.fetch(plan.index.walk(plan.reverse, plan.prefix, plan.range), query, stats, true);
    else if (plan.kind === 'merge') matches = this.fetch(this.mergeWalks(plan.index, plan.reverse, plan.prefixes, sortFields, stats), query, stats, false);
    // Index order, as an index scan returns (MongoDB promises no order without a sort).
    else if (plan.kind === 'ids') matches = this.fetch(plan.ids, query, stats, true);
    else matches = this.natural(query, stats);
    if (sortFields.length && !served) matches = this.sortBy([...matches], sortFields);
    let skipped = 0;
    let returned = 0;
    for (const doc of matches) {
      if (skipped < skip) {
        skipped++;
        continue;
      }
      if (stats) stats.nReturned++;
      yield doc;
      if (limit && ++returned >= limit) return;
    }
  }

  /** `{_id: value}` (a string or ObjectId) reads its one document by key, as MongoDB's IDHACK. */
  private byIdPlan(filter: Document): Plan | undefined {
    const id = filter._id;
    if (!(typeof id === 'string' || id instanceof ObjectId)) return undefined;
    for (const k in filter) if (k !== '_id') return undefined;
    return { kind: 'ids', ids: new Set(this.docs.has(idKeyString(id)) ? [idKeyString(id)] : []), index: '_id_' };
  }

  /** The documents of ids that pass the filter (an id whose document is gone is skipped). */
  private *fetch(ids: Iterable<string>, query: { test(doc: Document): boolean }, stats: ReadStats | undefined, keys: boolean): Generator<Document> {
    for (const id of ids) {
      const doc = this.docs.get(id);
      if (stats) {
        if (keys) stats.keysExamined++;
        if (doc) stats.docsExamined++;
      }
      if (doc && query.test(doc)) yield doc;
    }
  }

  /** Every document in natural (insertion) order that passes the filter. */
  private *natural(query: { test(doc: Document): boolean }, stats: ReadStats | undefined): Generator<Document> {
    for (const doc of this.docs.values()) {
      if (stats) stats.docsExamined++;
      if (query.test(doc)) yield doc;
    }
  }

  /** Several ordered index walks merged into one stream in sort order, without duplicates. */
  private *mergeWalks(index: IndexStore, reverse: boolean, prefixes: unknown[][], sortFields: Array<[string, number]>, stats?: ReadStats): Generator<string> {
    // Each head keeps its sort key, read once per document (not once per comparison).
    interface Head {
      it: Iterator<string>;
      id: string;
      key: unknown[];
    }
    const heads: Head[] = [];
    const advance = (it: Iterator<string>): Head | undefined => {
      for (let r = it.next(); !r.done; r = it.next()) {
        if (stats) stats.keysExamined++;
        const doc = this.docs.get(r.value);
        if (doc) return { it, id: r.value, key: sortFields.map(([f]) => getPath(doc, f)) };
      }
      return undefined;
    };
    for (const prefix of prefixes) {
      const head = advance(index.walk(reverse, prefix)[Symbol.iterator]());
      if (head) heads.push(head);
    }
    const before = (a: Head, b: Head) => {
      for (let i = 0; i < sortFields.length; i++) {
        const c = compareValues(a.key[i], b.key[i]) * sortFields[i][1];
        if (c) return c < 0;
      }
      return false;
    };
    // Only a multikey index can hold one document under two prefixes.
    const seen = index.multikey ? new Set<string>() : undefined;
    while (heads.length) {
      let min = 0;
      for (let i = 1; i < heads.length; i++) if (before(heads[i], heads[min])) min = i;
      const head = heads[min];
      if (!seen?.has(head.id)) {
        seen?.add(head.id);
        yield head.id;
      }
      const next = advance(head.it);
      if (next) heads[min] = next;
      else heads.splice(min, 1);
    }
  }

  private sortBy(docs: Document[], fields: Array<[string, number]>): Document[] {
    return fields.length ? sortDocuments(docs, Object.fromEntries(fields)) : docs;
  }

  createIndex(spec: IndexSpec): boolean {
    const existing = [...this.indexes.values()].find((i) => i.name === spec.name || sameKey(i.spec.key, spec.key));
    if (existing) {
      if (existing.name !== spec.name && sameKey(existing.spec.key, spec.key) && sameOptions(existing.spec, spec)) return false;
      if (existing.name === spec.name && sameKey(existing.spec.key, spec.key) && sameOptions(existing.spec, spec)) return false;
      if (existing.name === spec.name && !sameKey(existing.spec.key, spec.key)) {
        throw new MongoServerError(
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`,
        );
      }
      throw new MongoServerError(
        'IndexOptionsConflict',
        `An equivalent index already exists with a different name or options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`,
      );
    }
    const index = new IndexStore(spec);
    for (const [id, doc] of this.docs) {
      // A unique index is checked document by document; any other is sorted once.
      if (spec.unique) {
        index.checkUnique(doc, id, this.ns);
        index.add(doc, id);
      } else index.stage(doc, id);
    }
    this.indexes.set(spec.name, index);
    this.peekCache = undefined;
    this.sink?.({ op: 'createIndex', db: this.db, coll: this.name, spec });
    return true;
  }

  dropIndex(name: string): void {
    if (name === '_id_') throw new MongoServerError('InvalidOptions', 'cannot drop _id index');
    if (!this.indexes.delete(name)) throw new MongoServerError('IndexNotFound', `index not found with name [${name}]`);
    this.peekCache = undefined;
    this.sink?.({ op: 'dropIndex', db: this.db, coll: this.name, name });
  }

  indexNamed(keyOrName: string | Document): IndexStore | undefined {
    if (typeof keyOrName === 'string') return this.indexes.get(keyOrName);
    return [...this.indexes.values()].find((i) => sameKey(i.spec.key, keyOrName));
  }
}

function sameKey(a: Document, b: Document): boolean {
  return JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));
}

const OPTION_KEYS = ['unique', 'sparse', 'expireAfterSeconds', 'partialFilterExpression'] as const;
function sameOptions(a: IndexSpec, b: IndexSpec): boolean {
  const norm = (v: unknown) => JSON.stringify(v === false || v === undefined ? null : v);
  return OPTION_KEYS.every((k) => norm(a[k]) === norm(b[k]));
}
