/**
 * The engine: databases of collections, open cursors, the TTL monitor, and the command dispatch
 * that mongoose 9 and Agenda 6 need. Each command runs to completion synchronously, so every
 * single command is atomic. Multi-document transactions are refused, as a standalone mongod does.
 */
import { Aggregator } from 'mingo/aggregator';
import { Query } from 'mingo/query';
import { Long, ObjectId, type Document } from 'bson';
import { idKeyString, keyString } from './bson-values';
import { Collection, TimeBudget, type Change } from './collection';
import { isPlainObject, valuesAtPath } from './documents';
import { nativeGroup } from './group';
import { MongoServerError } from './errors';
import type { IndexSpec } from './index-store';
import { mingoOptions } from './mingo-context';
import { applyUpdate, buildUpsert } from './update';
import { MAX_BSON_SIZE, MAX_MESSAGE_SIZE } from './wire';
import { refuseUnsupported } from './unsupported';
import type { Encoded } from './stored-docs';
import { runCollMod, runMerge, runOut } from './write-stages';
import { explainRead, newStats, verbosityOf } from './explain';

/**
 * An open cursor: where its read stands (a generator reading on demand, so it holds one batch,
 * not its result), the document read one past the last batch, and what every batch gets.
 */
interface Cursor {
  ns: string;
  source: Iterator<Document>;
  peeked?: IteratorResult<Document>;
  projection?: Document;
  budget?: TimeBudget;
  lastUsed: number;
  /** noCursorTimeout: kept however long it sits unused. */
  keep: boolean;
}

const DEFAULT_BATCH = 101;
const BATCH_BYTES = 8 * 1024 * 1024;
const MAX_WRITE_BATCH = 100_000;

function toInt(v: unknown, fallback = 0): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number') return Math.trunc(v);
  if (v instanceof Long) return v.toNumber();
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

function requireString(cmd: Document, name: string): string {
  const v = cmd[name];
  if (typeof v !== 'string' || v.length === 0) {
    throw new MongoServerError('InvalidNamespace', `collection name has invalid type ${typeof v}`);
  }
  return v;
}

/** A command's maxTimeMS as a time budget (none when absent or 0). */
function budgetOf(cmd: Document): TimeBudget | undefined {
  const ms = cmd.maxTimeMS === undefined ? 0 : toInt(cmd.maxTimeMS);
  return ms > 0 ? new TimeBudget(ms) : undefined;
}

function projectDocs(docs: Document[], projection: Document | undefined): Document[] {
  if (!projection || Object.keys(projection).length === 0) return docs;
  const fast = simpleProjection(projection);
  if (fast) return docs.map(fast);
  return new Query({}, mingoOptions()).find(docs, projection).all() as Document[];
}

/**
 * The common case natively: top-level fields only, all included (or all excluded), _id included
 * unless excluded. Anything else (dotted paths, operators, $slice...) goes through mingo.
 */
function simpleProjection(projection: Document): ((doc: Document) => Document) | undefined {
  const entries = Object.entries(projection);
  if (!entries.every(([k, v]) => !k.includes('.') && !k.startsWith('$') && (v === 0 || v === 1 || v === true || v === false))) return undefined;
  const on = (v: unknown) => v === 1 || v === true;
  const others = entries.filter(([k]) => k !== '_id');
  const idShown = !entries.some(([k, v]) => k === '_id' && !on(v));
  // {_id: 1} alone shows only _id; {_id: 0} alone hides only _id.
  const inclusive = others.length ? on(others[0][1]) : idShown;
  if (!others.every(([, v]) => on(v) === inclusive)) return undefined;
  if (inclusive) {
    const fields = [...(idShown ? ['_id'] : []), ...others.map(([k]) => k)];
    return (doc) => {
      const out: Document = {};
      for (const f of fields) if (f in doc) out[f] = doc[f];
      return out;
    };
  }
  const hidden = new Set(entries.filter(([, v]) => !on(v)).map(([k]) => k));
  return (doc) => {
    const out: Document = {};
    for (const k of Object.keys(doc)) if (!hidden.has(k)) out[k] = doc[k];
    return out;
  };
}

export interface EngineOptions {
  /** How often expired TTL documents are removed (MongoDB: 60 s). */
  ttlMonitorIntervalMs?: number;
  /** A cursor no getMore touched for this long is closed, checked with the TTL monitor (MongoDB's cursorTimeoutMillis: 10 min). */
  cursorTimeoutMs?: number;
}

/** Where a durable engine sends each command's changes; resolves once they are on disk. */
export interface Journal {
  append(changes: Change[]): Promise<void>;
}

/** One collection's state at an instant (documents are never changed in place, so this is a consistent cut). */
export interface CollectionState {
  db: string;
  coll: string;
  options: Document;
  indexes: IndexSpec[];
  /** Decoded, or as loaded from a snapshot and never read since. */
  docs: Array<Document | Encoded>;
}

export class Engine {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  private readonly cursors = new Map<bigint, Cursor>();
  /** Commands received by name (serverStatus metrics.commands). */
  private readonly commandCounts = new Map<string, number>();
  private nextCursorId = 1n;
  private connectionIds = 0;
  private readonly ttlTimer: NodeJS.Timeout;
  private journal?: Journal;
  /** The changes of the command running now (collected only when a journal is attached). */
  private changes?: Change[];
  private readonly observers = new Set<(change: Change) => void>();
  private readonly sink = (change: Change) => {
    this.changes?.push(change);
    for (const observe of this.observers) observe(change);
  };

  constructor(opts: EngineOptions = {}) {
    this.ttlTimer = setInterval(() => {
      this.closeIdleCursors(Date.now() - (opts.cursorTimeoutMs ?? 10 * 60_000));
      void this.execute(() => this.sweepTtl()).durable?.catch(() => undefined);
    }, opts.ttlMonitorIntervalMs ?? 60_000);
    this.ttlTimer.unref();
  }

  /** From now on every change is journaled, and execute() says when a command's changes are durable. */
  attachJournal(journal: Journal): void {
    this.journal = journal;
  }

  /**
   * Runs a command (or any engine work) and, on a durable engine, returns the promise that its
   * changes are on disk: the reply must not be sent before it resolves (MongoDB's `j: true`).
   */
  execute<T>(work: () => T): { result: T; durable?: Promise<void> } {
    if (!this.journal) return { result: work() };
    this.changes = [];
    let result: T;
    let changes: Change[];
    try {
      result = work();
    } finally {
      changes = this.changes;
      this.changes = undefined;
    }
    return { result, durable: changes.length ? this.journal.append(changes) : undefined };
  }

  /**
   * Calls `observe` with every change a command makes, synchronously, before its reply leaves
   * (what a change stream would tell, for the one-process platform's caches). Returns the unsubscribe.
   */
  onChange(observe: (change: Change) => void): () => void {
    this.observers.add(observe);
    return () => this.observers.delete(observe);
  }

  /** Applies one journaled change (recovery); nothing is journaled again. */
  apply(change: Change): void {
    switch (change.op) {
      case 'createCollection':
        this.collection(change.db, change.coll, true);
        return;
      case 'dropCollection':
        this.dbs.get(change.db)?.delete(change.coll);
        return;
      case 'dropDatabase':
        this.dbs.delete(change.db);
        return;
      case 'createIndex': {
        const coll = this.collection(change.db, change.coll, true);
        if (!coll.indexes.has(change.spec.name)) coll.createIndex(change.spec);
        return;
      }
      case 'dropIndex':
        if (this.collection(change.db, change.coll)?.indexes.has(change.name)) this.collection(change.db, change.coll)!.dropIndex(change.name);
        return;
      case 'put':
        this.collection(change.db, change.coll, true).load(change.doc);
        return;
      case 'delete':
        this.collection(change.db, change.coll)?.remove(idKeyString(change.id));
        return;
    }
  }

  /** Every collection's documents and index specs, captured synchronously (for a snapshot). */
  captureState(): CollectionState[] {
    const out: CollectionState[] = [];
    for (const [db, colls] of this.dbs) {
      for (const [name, c] of colls)
        out.push({ db, coll: name, options: c.options, indexes: [...c.indexes.values()].map((i) => ({ ...i.spec })), docs: [...c.docs.stored()] });
    }
    return out;
  }

  /** Recovery: one document of a snapshot, kept encoded until read (Collection.loadEncoded). */
  loadEncoded(db: string, coll: string, doc: Encoded): void {
    this.collection(db, coll, true).loadEncoded(doc);
  }

  /** Sorts index entries staged by recovery (each index once). */
  settleIndexes(): void {
    for (const db of this.dbs.values()) for (const coll of db.values()) for (const index of coll.indexes.values()) index.settle();
  }

  /** Forgets every database (recovery falls back to an older snapshot). */
  reset(): void {
    this.dbs.clear();
    this.cursors.clear();
  }

  close(): void {
    clearInterval(this.ttlTimer);
  }

  newConnectionId(): number {
    return ++this.connectionIds;
  }

  private database(name: string, create: boolean): Map<string, Collection> | undefined {
    let db = this.dbs.get(name);
    if (!db && create) this.dbs.set(name, (db = new Map()));
    return db;
  }

  collection(db: string, name: string, create: true): Collection;
  collection(db: string, name: string, create?: boolean): Collection | undefined;
  collection(db: string, name: string, create = false): Collection | undefined {
    const d = this.database(db, create);
    let c = d?.get(name);
    if (!c && create) {
      if (name.includes('$') || name.startsWith('.') || name.length === 0) {
        throw new MongoServerError('InvalidNamespace', `Invalid collection name: ${name}`);
      }
      d!.set(name, (c = new Collection(db, name, {}, this.sink)));
      this.sink({ op: 'createCollection', db, coll: name, options: {} });
    }
    return c;
  }

  /** Removes documents whose TTL index date is older than expireAfterSeconds. */
  sweepTtl(now = Date.now()): number {
    let removed = 0;
    for (const db of this.dbs.values()) {
      for (const coll of db.values()) {
        for (const index of coll.indexes.values()) {
          const ttl = index.spec.expireAfterSeconds;
          if (typeof ttl !== 'number' || index.fields.length !== 1) continue;
          // The index's date entries up to the cutoff: a document expires when its earliest date has.
          const cutoff = now - ttl * 1000;
          const expired = { lower: new Date(-8.64e15), upper: new Date(cutoff), test: (v: unknown) => v instanceof Date && v.getTime() <= cutoff };
          for (const id of [...index.walk(false, [], expired)]) if (coll.remove(id)) removed++;
        }
      }
    }
    return removed;
  }

  /** Runs one command document; returns the reply document (errors as {ok: 0, ...}). */
  run(cmd: Document, connectionId = 0): Document {
    try {
      return this.dispatch(cmd, connectionId);
    } catch (e) {
      if (e instanceof MongoServerError) return e.toReply();
      const message = e instanceof Error ? e.message : String(e);
      return new MongoServerError('BadValue', message).toReply();
    }
  }

  private dispatch(cmd: Document, connectionId: number): Document {
    const name = Object.keys(cmd)[0];
    this.commandCounts.set(name, (this.commandCounts.get(name) ?? 0) + 1);
    const db = typeof cmd.$db === 'string' ? cmd.$db : 'test';
    if (cmd.txnNumber !== undefined && (cmd.startTransaction || cmd.autocommit === false)) {
      throw new MongoServerError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
    }
    refuseUnsupported(name, cmd);
    switch (name) {
      case 'hello':
      case 'ismaster':
      case 'isMaster':
        return this.hello(name, connectionId);
      case 'ping':
        return { ok: 1 };
      case 'buildInfo':
      case 'buildinfo':
        return { version: '7.0.0', gitVersion: 'embedded', versionArray: [7, 0, 0, 0], bits: 64, maxBsonObjectSize: MAX_BSON_SIZE, ok: 1 };
      case 'getParameter':
        return { featureCompatibilityVersion: { version: '7.0' }, ok: 1 };
      case 'endSessions':
      case 'killSessions':
      case 'startSession':
        return { ok: 1 };
      case 'commitTransaction':
      case 'abortTransaction':
        throw new MongoServerError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
      case 'listDatabases':
        return this.listDatabases(cmd);
      case 'dropDatabase':
        if (this.dbs.delete(db)) this.sink({ op: 'dropDatabase', db });
        return { dropped: db, ok: 1 };
      case 'create':
        return this.create(db, cmd);
      case 'drop':
        return this.drop(db, cmd);
      case 'listCollections':
        return this.listCollections(db, cmd);
      case 'createIndexes':
        return this.createIndexes(db, cmd);
      case 'listIndexes':
        return this.listIndexes(db, cmd);
      case 'dropIndexes':
        return this.dropIndexes(db, cmd);
      case 'insert':
        return this.insert(db, cmd);
      case 'update':
        return this.update(db, cmd);
      case 'delete':
        return this.delete(db, cmd);
      case 'findAndModify':
      case 'findandmodify':
        return this.findAndModify(db, cmd);
      case 'find':
        return this.find(db, cmd);
      case 'getMore':
        return this.getMore(db, cmd);
      case 'killCursors':
        return this.killCursors(cmd);
      case 'serverStatus':
        // The sections tools read here, at MongoDB's field paths: cursors left open, commands, and the
        // process's memory in MiB (mem.resident; mem.heapUsed is the engine's own addition).
        return {
          metrics: {
            cursor: { open: { total: Long.fromNumber(this.cursors.size) } },
            // Commands received, by name, since the engine started (a benchmark's reads per request).
            commands: Object.fromEntries([...this.commandCounts].map(([n, total]) => [n, { total: Long.fromNumber(total) }])),
          },
          mem: { bits: 64, resident: Math.round(process.memoryUsage().rss / 1048576), heapUsed: Math.round(process.memoryUsage().heapUsed / 1048576) },
          ok: 1,
        };
      case 'count':
        return this.count(db, cmd);
      case 'distinct':
        return this.distinct(db, cmd);
      case 'aggregate':
        return this.aggregate(db, cmd);
      case 'explain':
        return this.explain(db, cmd);
      case 'collMod':
        return runCollMod(this.collection(db, requireString(cmd, 'collMod')), cmd, this.sink);
      default:
        throw new MongoServerError('CommandNotFound', `no such command: '${name}'`);
    }
  }

  private hello(name: string, connectionId: number): Document {
    return {
      ...(name === 'hello' ? {} : { ismaster: true }),
      helloOk: true,
      isWritablePrimary: true,
      maxBsonObjectSize: MAX_BSON_SIZE,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE,
      maxWriteBatchSize: MAX_WRITE_BATCH,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId,
      minWireVersion: 0,
      maxWireVersion: 21,
      readOnly: false,
      ok: 1,
    };
  }

  private listDatabases(cmd: Document): Document {
    const databases = [...this.dbs.entries()].map(([name, colls]) => ({ name, sizeOnDisk: 0, empty: colls.size === 0 }));
    if (cmd.nameOnly) return { databases: databases.map(({ name }) => ({ name })), ok: 1 };
    return { databases, totalSize: 0, totalSizeMb: 0, ok: 1 };
  }

  private create(db: string, cmd: Document): Document {
    const name = requireString(cmd, 'create');
    if (this.collection(db, name)) throw new MongoServerError('NamespaceExists', `Collection ${db}.${name} already exists.`);
    this.collection(db, name, true);
    return { ok: 1 };
  }

  private drop(db: string, cmd: Document): Document {
    const name = requireString(cmd, 'drop');
    const coll = this.collection(db, name);
    if (!coll) return { ok: 1 };
    this.dbs.get(db)!.delete(name);
    this.sink({ op: 'dropCollection', db, coll: name });
    return { ns: coll.ns, nIndexesWas: coll.indexes.size, ok: 1 };
  }

  /**
   * The first batch of a read and, when more may follow, an open cursor over the rest. `source`
   * is read only as far as this batch (and one document past it, to know whether it is the last).
   */
  private cursorReply(
    ns: string,
    source: Iterable<Document>,
    batchSize: number | undefined,
    single: boolean,
    options: { projection?: Document; budget?: TimeBudget; keep?: boolean } = {},
  ): Document {
    const cursor: Cursor = {
      ns,
      source: source[Symbol.iterator](),
      projection: options.projection,
      budget: options.budget,
      lastUsed: Date.now(),
      keep: options.keep === true,
    };
    const { batch, done } = this.takeBatch(cursor, batchSize ?? DEFAULT_BATCH);
    let id = 0n;
    if (!done && !single) {
      id = this.nextCursorId++;
      this.cursors.set(id, cursor);
    } else cursor.source.return?.();
    return { cursor: { firstBatch: batch, id: Long.fromBigInt(id), ns }, ok: 1 };
  }

  /** The next batch: batchSize documents (all when 0), fewer when the reply would grow past BATCH_BYTES. */
  private takeBatch(cursor: Cursor, batchSize: number): { batch: Document[]; done: boolean } {
    const max = batchSize > 0 ? batchSize : Infinity;
    const out: Document[] = [];
    let bytes = 0;
    cursor.budget?.resume();
    try {
      let done = false;
      while (out.length < max) {
        const r = cursor.peeked ?? cursor.source.next();
        cursor.peeked = undefined;
        if (r.done) {
          done = true;
          break;
        }
        // Approximate reply size: keep under the 16 MiB reply document.
        bytes += estimateSize(r.value);
        if (out.length > 0 && bytes > BATCH_BYTES) {
          cursor.peeked = r;
          break;
        }
        out.push(r.value);
      }
      if (!done && !cursor.peeked) {
        cursor.peeked = cursor.source.next();
        done = cursor.peeked.done === true;
      }
      return { batch: projectDocs(out, cursor.projection), done };
    } catch (e) {
      // A stage evaluated lazily failing on a document.
      throw asServerError(e);
    } finally {
      cursor.budget?.pause();
    }
  }

  /** Closes cursors unused since `before` (ms), as MongoDB's cursor timeout does. */
  private closeIdleCursors(before: number): void {
    for (const [id, cursor] of this.cursors) {
      if (cursor.keep || cursor.lastUsed >= before) continue;
      cursor.source.return?.();
      this.cursors.delete(id);
    }
  }

  private listCollections(db: string, cmd: Document): Document {
    const colls = [...(this.dbs.get(db)?.values() ?? [])];
    let infos: Document[] = colls.map((c) =>
      cmd.nameOnly
        ? { name: c.name, type: 'collection' }
        : { name: c.name, type: 'collection', options: c.options, info: { readOnly: false, uuid: c.uuid }, idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } },
    );
    if (cmd.filter && Object.keys(cmd.filter).length) {
      const q = new Query(cmd.filter, mingoOptions());
      infos = infos.filter((i) => q.test(i));
    }
    return this.cursorReply(`${db}.$cmd.listCollections`, infos, toInt(cmd.cursor?.batchSize, 0) || undefined, false);
  }

  private createIndexes(db: string, cmd: Document): Document {
    const name = requireString(cmd, 'createIndexes');
    const existed = !!this.collection(db, name);
    const coll = this.collection(db, name, true);
    const before = coll.indexes.size;
    const specs = cmd.indexes as Document[];
    if (!Array.isArray(specs) || specs.length === 0) throw new MongoServerError('BadValue', 'Must specify at least one index to create');
    for (const raw of specs) {
      if (!raw || typeof raw.key !== 'object' || Object.keys(raw.key).length === 0)
        throw new MongoServerError('BadValue', 'Index key pattern must be a non-empty object');
      const key: Record<string, number | string> = {};
      for (const [k, v] of Object.entries(raw.key)) key[k] = typeof v === 'number' || typeof v === 'string' ? v : toInt(v, 1);
      const spec: IndexSpec = {
        ...raw,
        v: 2,
        key,
        name:
          typeof raw.name === 'string'
            ? raw.name
            : Object.entries(key)
                .map(([k, v]) => `${k}_${v}`)
                .join('_'),
      };
      if (spec.unique === false) delete spec.unique;
      coll.createIndex(spec);
    }
    return { createdCollectionAutomatically: !existed, numIndexesBefore: before, numIndexesAfter: coll.indexes.size, ok: 1 };
  }

  private listIndexes(db: string, cmd: Document): Document {
    const name = requireString(cmd, 'listIndexes');
    const coll = this.collection(db, name);
    if (!coll) throw new MongoServerError('NamespaceNotFound', `ns does not exist: ${db}.${name}`);
    const specs = [...coll.indexes.values()].map((i) => ({ ...i.spec }));
    return this.cursorReply(`${db}.${name}`, specs, toInt(cmd.cursor?.batchSize, 0) || undefined, false);
  }

  private dropIndexes(db: string, cmd: Document): Document {
    const name = requireString(cmd, 'dropIndexes');
    const coll = this.collection(db, name);
    if (!coll) throw new MongoServerError('NamespaceNotFound', `ns not found ${db}.${name}`);
    const was = coll.indexes.size;
    const targets = Array.isArray(cmd.index) ? cmd.index : [cmd.index];
    for (const t of targets) {
      if (t === '*') {
        for (const n of [...coll.indexes.keys()]) if (n !== '_id_') coll.dropIndex(n);
      } else {
        const idx = coll.indexNamed(t);
        if (!idx) throw new MongoServerError('IndexNotFound', `index not found with name [${typeof t === 'string' ? t : JSON.stringify(t)}]`);
        coll.dropIndex(idx.name);
      }
    }
    return { nIndexesWas: was, ok: 1 };
  }

  private insert(db: string, cmd: Document): Document {
    const coll = this.collection(db, requireString(cmd, 'insert'), true);
    const docs = (cmd.documents ?? []) as Document[];
    const ordered = cmd.ordered !== false;
    const writeErrors: Document[] = [];
    let n = 0;
    for (let i = 0; i < docs.length; i++) {
      try {
        let doc = docs[i];
        // MongoDB stores _id as the first field.
        if (doc._id === undefined) doc = { _id: new ObjectId(), ...doc };
        else if (Object.keys(doc)[0] !== '_id') {
          const { _id, ...rest } = doc;
          doc = { _id, ...rest };
        }
        coll.insert(doc);
        n++;
      } catch (e) {
        writeErrors.push(writeError(i, e));
        if (ordered) break;
      }
    }
    return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
  }

  private update(db: string, cmd: Document): Document {
    const coll = this.collection(db, requireString(cmd, 'update'), true);
    const ordered = cmd.ordered !== false;
    const writeErrors: Document[] = [];
    const upserted: Document[] = [];
    let n = 0;
    let nModified = 0;
    const updates = (cmd.updates ?? []) as Document[];
    const variables = letOf(cmd);
    for (let i = 0; i < updates.length; i++) {
      const { q = {}, u, upsert, multi, arrayFilters } = updates[i];
      try {
        if (u === undefined || u === null || typeof u !== 'object') throw new MongoServerError('FailedToParse', 'update must be an object or an array');
        if (multi && !Array.isArray(u) && Object.keys(u).length && !Object.keys(u).every((k) => k.startsWith('$'))) {
          throw new MongoServerError('FailedToParse', 'multi update is not supported for replacement-style update');
        }
        const matches = coll.find(q, { limit: multi ? 0 : 1, variables });
        if (matches.length === 0 && upsert) {
          const doc = buildUpsert(q, u, arrayFilters, variables);
          coll.insert(doc);
          upserted.push({ index: i, _id: doc._id });
          n++;
          continue;
        }
        for (const doc of matches) {
          const next = applyUpdate(doc, u, { arrayFilters, filter: q, variables });
          n++;
          if (sameDocument(doc, next)) continue;
          coll.replace(Collection.idKey(doc), next);
          nModified++;
        }
      } catch (e) {
        writeErrors.push(writeError(i, e));
        if (ordered) break;
      }
    }
    const reply: Document = { n, nModified, ok: 1 };
    if (upserted.length) reply.upserted = upserted;
    if (writeErrors.length) reply.writeErrors = writeErrors;
    return reply;
  }

  private delete(db: string, cmd: Document): Document {
    const coll = this.collection(db, requireString(cmd, 'delete'));
    const ordered = cmd.ordered !== false;
    const writeErrors: Document[] = [];
    let n = 0;
    const deletes = (cmd.deletes ?? []) as Document[];
    for (let i = 0; i < deletes.length; i++) {
      try {
        if (!coll) continue;
        const { q = {}, limit } = deletes[i];
        const matches = coll.find(q, { limit: toInt(limit) === 1 ? 1 : 0, variables: letOf(cmd) });
        for (const doc of matches) if (coll.remove(Collection.idKey(doc))) n++;
      } catch (e) {
        writeErrors.push(writeError(i, e));
        if (ordered) break;
      }
    }
    return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
  }

  private findAndModify(db: string, cmd: Document): Document {
    const name = requireString(cmd, Object.keys(cmd)[0]);
    const query = cmd.query ?? {};
    const coll = this.collection(db, name, true);
    if (cmd.remove && cmd.update) throw new MongoServerError('FailedToParse', 'Cannot specify both an update and remove=true');
    if (!cmd.remove && cmd.update === undefined) throw new MongoServerError('FailedToParse', 'Either an update or remove=true must be specified');
    const variables = letOf(cmd);
    const [doc] = coll.find(query, { sort: cmd.sort, limit: 1, variables });
    const project = (d: Document | null) => (d && cmd.fields ? projectDocs([d], cmd.fields)[0] : d);
    if (cmd.remove) {
      if (doc) coll.remove(Collection.idKey(doc));
      return { lastErrorObject: { n: doc ? 1 : 0 }, value: project(doc ?? null), ok: 1 };
    }
    if (!doc) {
      if (!cmd.upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
      const inserted = buildUpsert(query, cmd.update, cmd.arrayFilters, variables);
      coll.insert(inserted);
      return { lastErrorObject: { n: 1, updatedExisting: false, upserted: inserted._id }, value: project(cmd.new ? inserted : null), ok: 1 };
    }
    const next = applyUpdate(doc, cmd.update, { arrayFilters: cmd.arrayFilters, filter: query, variables });
    if (!sameDocument(doc, next)) coll.replace(Collection.idKey(doc), next);
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: project(cmd.new ? next : doc), ok: 1 };
  }

  private find(db: string, cmd: Document): Document {
    const name = requireString(cmd, 'find');
    const coll = this.collection(db, name);
    const limit = toInt(cmd.limit);
    const single = cmd.singleBatch === true || limit < 0;
    const budget = budgetOf(cmd);
    const docs = coll ? coll.scan(cmd.filter ?? {}, { sort: cmd.sort, skip: toInt(cmd.skip), limit: Math.abs(limit), budget, variables: letOf(cmd) }) : [];
    const batchSize = cmd.batchSize !== undefined ? toInt(cmd.batchSize) : undefined;
    return this.cursorReply(`${db}.${name}`, docs, single ? Math.abs(limit) || batchSize : batchSize, single, {
      projection: cmd.projection,
      budget,
      keep: cmd.noCursorTimeout === true,
    });
  }

  /** `explain` of find and aggregate (./explain.ts). */
  private explain(db: string, cmd: Document): Document {
    const verbosity = verbosityOf(cmd.verbosity);
    const inner = cmd.explain as Document;
    if (!isPlainObject(inner)) throw new MongoServerError('FailedToParse', 'explain needs a command document');
    const name = Object.keys(inner)[0];
    refuseUnsupported(name, inner);
    const stats = newStats();
    const started = Date.now();
    if (name === 'find') {
      const coll = this.collection(db, requireString(inner, 'find'));
      const limit = Math.abs(toInt(inner.limit));
      const sort = inner.sort as Record<string, number> | undefined;
      const shape = { ns: `${db}.${inner.find}`, filter: (inner.filter ?? {}) as Document, sort, skip: toInt(inner.skip), limit };
      coll?.find(shape.filter, { sort, skip: shape.skip, limit, variables: letOf(inner), stats });
      return { ...explainRead(stats, shape, Date.now() - started, verbosity), command: inner, ok: 1 };
    }
    if (name === 'aggregate') {
      const coll = this.collection(db, requireString(inner, 'aggregate'));
      const pipeline = (inner.pipeline ?? []) as Document[];
      const first = pipeline[0]?.$match as Document | undefined;
      const shape = { ns: `${db}.${inner.aggregate}`, filter: first ?? {} };
      coll?.find(shape.filter, { variables: letOf(inner), stats });
      const cursor = explainRead(stats, shape, Date.now() - started, verbosity);
      const rest = first ? pipeline.slice(1) : pipeline;
      return rest.length ? { stages: [{ $cursor: cursor }, ...rest], command: inner, ok: 1 } : { ...cursor, command: inner, ok: 1 };
    }
    throw new MongoServerError('CommandNotSupported', `explain of ${name} is not supported by the embedded engine`);
  }

  private getMore(db: string, cmd: Document): Document {
    const raw = cmd.getMore;
    const id = raw instanceof Long ? raw.toBigInt() : BigInt(toInt(raw));
    const cursor = this.cursors.get(id);
    if (!cursor) throw new MongoServerError('CursorNotFound', `cursor id ${id} not found`);
    cursor.lastUsed = Date.now();
    let taken: { batch: Document[]; done: boolean };
    try {
      taken = this.takeBatch(cursor, toInt(cmd.batchSize, 0));
    } catch (e) {
      // A cursor whose read failed (maxTimeMS, a stage's error) is closed, as on MongoDB.
      this.cursors.delete(id);
      throw e;
    }
    const { batch, done } = taken;
    if (done) this.cursors.delete(id);
    return { cursor: { nextBatch: batch, id: Long.fromBigInt(done ? 0n : id), ns: cursor.ns }, ok: 1 };
  }

  private killCursors(cmd: Document): Document {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const raw of (cmd.cursors ?? []) as unknown[]) {
      const id = raw instanceof Long ? raw.toBigInt() : BigInt(toInt(raw));
      const cursor = this.cursors.get(id);
      cursor?.source.return?.();
      (this.cursors.delete(id) ? killed : notFound).push(Long.fromBigInt(id));
    }
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  private count(db: string, cmd: Document): Document {
    const coll = this.collection(db, requireString(cmd, 'count'));
    if (!coll) return { n: 0, ok: 1 };
    const query = cmd.query ?? {};
    const n = Object.keys(query).length === 0 ? coll.docs.size : count(coll.scan(query, { budget: budgetOf(cmd) }));
    const skip = toInt(cmd.skip);
    const limit = toInt(cmd.limit);
    const after = Math.max(0, n - skip);
    return { n: limit ? Math.min(after, Math.abs(limit)) : after, ok: 1 };
  }

  private distinct(db: string, cmd: Document): Document {
    const coll = this.collection(db, requireString(cmd, 'distinct'));
    if (typeof cmd.key !== 'string') throw new MongoServerError('FailedToParse', "distinct needs a 'key' string");
    const seen = new Map<string, unknown>();
    for (const doc of coll?.find(cmd.query ?? {}) ?? []) {
      for (const v of valuesAtPath(doc, cmd.key)) {
        if (v === undefined) continue;
        const k = keyString(v);
        if (!seen.has(k)) seen.set(k, v);
      }
    }
    return { values: [...seen.values()], ok: 1 };
  }

  private aggregate(db: string, cmd: Document): Document {
    const target = cmd.aggregate;
    const pipeline = cmd.pipeline as Document[];
    if (!Array.isArray(pipeline)) throw new MongoServerError('FailedToParse', "'pipeline' option must be specified as an array");
    // $out / $merge: the last stage only; it writes what the stages before it produce.
    const writes = pipeline
      .map((stage) => Object.keys(stage ?? {})[0])
      .map((op, i) => ({ op, i }))
      .filter(({ op }) => op === '$out' || op === '$merge');
    for (const { op, i } of writes)
      if (i !== pipeline.length - 1) throw new MongoServerError('Location40601', `${op} can only be the final stage in the pipeline`);
    const write = writes.length ? pipeline[pipeline.length - 1] : undefined;
    // Read lazily: stages that do not block ($match, $project, $addFields, $limit...) stream,
    // so a cursor holds its position and one batch; $sort and $group collect what they need.
    let input: Iterable<Document>;
    let stages = write ? pipeline.slice(0, -1) : pipeline;
    const budget = budgetOf(cmd);
    if (target === 1) {
      input = [];
    } else {
      const coll = this.collection(db, requireString(cmd, 'aggregate'));
      // A leading $match uses the collection's indexes.
      const first = stages[0]?.$match;
      if (coll && first) {
        input = coll.scan(first, { budget, variables: letOf(cmd) });
        stages = stages.slice(1);
      } else input = coll ? coll.scan({}, { budget }) : [];
    }
    const resolver = (name: string) => [...(this.collection(db, name)?.docs.values() ?? [])];
    let out: Iterable<Document>;
    try {
      // The common report shape ($group by fields and UTC days, $sum) natively; the rest through mingo.
      const variables = letOf(cmd);
      const grouped = stages[0]?.$group && !variables ? nativeGroup(stages[0].$group, input) : undefined;
      if (grouped) {
        input = grouped;
        stages = stages.slice(1);
      }
      if (stages.length) {
        out = new Aggregator(stages, mingoOptions({ collectionResolver: resolver, ...(variables ? { variables } : {}) })).stream(input) as Iterable<Document>;
      } else out = input;
    } catch (e) {
      throw asServerError(e);
    }
    if (write) {
      // Everything is read before anything is written ($out may replace the collection read).
      let docs: Document[];
      try {
        docs = [...out];
      } catch (e) {
        throw asServerError(e);
      }
      const target = { collection: (name: string) => this.collection(db, name, true) };
      if (write.$out !== undefined) runOut(write.$out, db, docs, target);
      else runMerge(write.$merge, db, docs, target);
      out = [];
    }
    const name = target === 1 ? '$cmd.aggregate' : String(target);
    return this.cursorReply(`${db}.${name}`, out, cmd.cursor?.batchSize !== undefined ? toInt(cmd.cursor.batchSize) : undefined, false, { budget });
  }
}

/**
 * A command's `let` variables ($$name): constants, as drivers send them. An expression as a
 * variable's value (evaluated once by MongoDB) is refused rather than taken literally.
 */
function letOf(cmd: Document): Document | undefined {
  if (cmd.let === undefined) return undefined;
  if (!isPlainObject(cmd.let)) throw new MongoServerError('TypeMismatch', "BSON field 'let' is the wrong type, expected type 'object'");
  for (const [name, v] of Object.entries(cmd.let)) {
    const expression = (typeof v === 'string' && v.startsWith('$')) || (isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$')));
    if (expression) throw new MongoServerError('CommandNotSupported', `let: the variable '${name}' is an expression; the embedded engine takes constants only`);
  }
  return cmd.let as Document;
}

/**
 * An upper-bound-ish size of a reply document, without serializing it (the batch must stay
 * under the 16 MiB reply; exactness is only needed near it): strings by UTF-16 length x 3,
 * numbers and dates 8, binary values their length, containers their members plus overhead.
 */
function estimateSize(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length * 3 + 8;
  if (value === null || typeof value !== 'object') return 9;
  if (depth > 100) return 64;
  if (value instanceof Date) return 9;
  if (ArrayBuffer.isView(value)) return value.byteLength + 16;
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType) return bsonType === 'Binary' ? ((value as { position?: number }).position ?? 0) + 16 : 24;
  let size = 16;
  if (Array.isArray(value)) {
    for (const v of value) size += 8 + estimateSize(v, depth + 1);
    return size;
  }
  for (const k in value as Record<string, unknown>) size += k.length + 2 + estimateSize((value as Record<string, unknown>)[k], depth + 1);
  return size;
}

/** An error from evaluating a stage or an expression (mingo) as MongoDB reports it. */
function asServerError(e: unknown): MongoServerError {
  return e instanceof MongoServerError ? e : new MongoServerError('BadValue', e instanceof Error ? e.message : String(e));
}

function count(docs: Iterable<unknown>): number {
  let n = 0;
  for (const _ of docs) n++;
  return n;
}

/** Whether an update left the document as it was: keyString equality, walked without building the whole key (a cell with its guard ids is long). */
function sameDocument(a: Document, b: Document): boolean {
  return sameValue(a, b);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || !sameValue(a[ka[i]!], b[kb[i]!])) return false;
    return true;
  }
  return keyString(a) === keyString(b);
}

function writeError(index: number, e: unknown): Document {
  if (e instanceof MongoServerError) {
    const { ok: _ok, codeName: _cn, ...rest } = e.toReply();
    return { index, ...rest, errmsg: e.message };
  }
  return { index, code: 2, errmsg: e instanceof Error ? e.message : String(e) };
}
