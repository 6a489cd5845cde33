/**
 * One secondary (or _id) index: key extraction with multikey expansion, the unique, sparse and
 * partial-filter rules, and the entries themselves: (key, id) pairs kept sorted in chunks of at
 * most CHUNK_MAX, found by binary search over the chunks' last entries and then within one.
 * Equality lookups, counts, ranges and ordered walks all read that one structure; an insert or
 * removal moves at most one chunk's worth of slots. A single-field index stores the key value
 * itself (no array per entry), and both the value and the id are the stored document's own
 * references, so an entry costs two slots. Documents are referred to by their _id key string,
 * which also orders equal keys (so removal finds an entry from the document alone).
 *
 * Recovery stages entries (`stage`) and sorts them once at the first read or write.
 */
import { Query } from 'mingo/query';
import type { Document } from 'bson';
import { compareValues, keyString } from './bson-values';
import { valuesAtPath } from './documents';
import { MongoServerError } from './errors';
import { mingoOptions } from './mingo-context';

export interface IndexSpec {
  v: number;
  key: Record<string, number | string>;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
  [option: string]: unknown;
}

export interface KeyRange {
  lower?: unknown;
  upper?: unknown;
  /** Exact test of a key value (bounds are inclusive hints; test decides strictness and types). */
  test: (v: unknown) => boolean;
}

/** A key: the value of a single-field index, the tuple of a compound one. */
type Key = unknown;

interface Chunk {
  keys: Key[];
  ids: string[];
}

/** Most entries in one chunk; a fuller one is split in two. */
const CHUNK_MAX = 512;
/** Staged entries beyond this are merged by one sort; fewer are inserted one by one. */
const MERGE_MIN = 4096;

const SEP = '\u0000';

export class IndexStore {
  readonly spec: IndexSpec;
  readonly fields: Array<[string, number]>;
  private readonly single: boolean;
  private readonly dirs: number[];
  private readonly partial?: Query;
  private chunks: Chunk[] = [];
  /** starts[c]: position of chunk c's first entry (rebuilt when stale). */
  private starts: number[] = [];
  private startsStale = false;
  /** Entries in the chunks (staged ones apart). */
  private entryCount = 0;
  /** Entries staged by recovery, not yet sorted in. */
  private staged: Chunk = { keys: [], ids: [] };
  /** Changed by every change of the entries: a paused walk then finds its place again. */
  private version = 0;
  /** bounds() of equality prefixes, until the entries change ($in over the same programs repeats). */
  private readonly boundsMemo = new Map<string, { start: number; end: number; k: number }>();
  private memoVersion = 0;
  /** Some document gave more than one key (an array): walks must drop repeated ids. */
  multikey = false;

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.entries(spec.key).map(([path, dir]) => [path, typeof dir === 'number' && dir < 0 ? -1 : 1]);
    this.single = this.fields.length === 1;
    this.dirs = this.fields.map(([, d]) => d);
    if (spec.partialFilterExpression) this.partial = new Query(spec.partialFilterExpression, mingoOptions());
  }

  get name(): string {
    return this.spec.name;
  }

  /** Usable by the planner: it holds every document. */
  get complete(): boolean {
    return !this.spec.sparse && !this.partial;
  }

  /** Entries held (a multikey document holds one per key). */
  get size(): number {
    return this.entryCount + this.staged.ids.length;
  }

  /** The key tuples a document contributes, or none when sparse/partial rules exclude it. */
  keysOf(doc: Document): unknown[][] {
    if (this.partial && !this.partial.test(doc)) return [];
    const perField = this.fields.map(([path]) => valuesAtPath(doc, path));
    if (this.spec.sparse && perField.every((vs) => vs.every((v) => v === undefined))) return [];
    let tuples: unknown[][] = [[]];
    for (const vs of perField) {
      const next: unknown[][] = [];
      for (const t of tuples) for (const v of vs) next.push([...t, v === undefined ? null : v]);
      tuples = next;
    }
    return tuples;
  }

  /** The distinct keys a document contributes, as stored. */
  private keysFor(doc: Document): Key[] {
    // The common case first: top-level fields holding no array give one key, built directly.
    // A stored compound key is an array of exactly its length: one grown by push keeps room for
    // 16 values (about 100 bytes more per entry, per index, per document).
    if (!this.partial && !this.spec.sparse) {
      let plain = true;
      const n = this.fields.length;
      const parts: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const path = this.fields[i]![0];
        const v = path.indexOf('.') < 0 ? doc[path] : undefined;
        if (Array.isArray(v) || path.indexOf('.') >= 0) {
          plain = false;
          break;
        }
        parts[i] = v === undefined ? null : v;
      }
      if (plain) return [this.single ? parts[0] : parts];
    }
    const tuples = this.keysOf(doc);
    if (tuples.length > 1) {
      this.multikey = true;
      const seen = new Set<string>();
      const out: Key[] = [];
      for (const t of tuples) {
        const s = IndexStore.tupleKey(t, t.length);
        if (seen.has(s)) continue;
        seen.add(s);
        out.push(this.single ? t[0] : t.slice());
      }
      return out;
    }
    return tuples.map((t) => (this.single ? t[0] : t.slice()));
  }

  private static tupleKey(values: unknown[], n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += (i ? SEP : '') + keyString(values[i]);
    return s;
  }

  private part(key: Key, i: number): unknown {
    return this.single ? key : (key as unknown[])[i];
  }

  private compareKeys(a: Key, b: Key): number {
    if (this.single) {
      // Strings (most ids and codes) compare directly: the same order compareValues gives them.
      if (typeof a === 'string' && typeof b === 'string') return (a < b ? -1 : a > b ? 1 : 0) * this.dirs[0];
      return compareValues(a, b) * this.dirs[0];
    }
    for (let i = 0; i < this.dirs.length; i++) {
      const x = (a as unknown[])[i];
      const y = (b as unknown[])[i];
      // Two strings, or two numbers (not NaN), compare directly: the order compareValues gives.
      const c =
        (typeof x === 'string' && typeof y === 'string') || (typeof x === 'number' && typeof y === 'number' && x === x && y === y)
          ? x < y
            ? -1
            : x > y
              ? 1
              : 0
          : compareValues(x, y);
      if (c) return c * this.dirs[i];
    }
    return 0;
  }

  /** Index order of (key, id) pairs: by key, then by id. */
  private compare(ka: Key, ia: string, kb: Key, ib: string): number {
    return this.compareKeys(ka, kb) || (ia < ib ? -1 : ia > ib ? 1 : 0);
  }

  // ---- positions ----

  private ensureStarts(): void {
    if (!this.startsStale) return;
    let n = 0;
    this.starts = this.chunks.map((c) => {
      const s = n;
      n += c.ids.length;
      return s;
    });
    this.startsStale = false;
  }

  private changed(): void {
    this.version++;
    this.startsStale = true;
  }

  /**
   * The first position whose entry `above(key, id)` holds (a monotone predicate over the order):
   * the chunk by its last entry, then the offset by binary search within it.
   */
  private firstWhere(above: (key: Key, id: string) => boolean): number {
    const at = this.seek(above);
    if (!at) return this.entryCount;
    this.ensureStarts();
    return this.starts[at[0]] + at[1];
  }

  /** The chunk and offset of the first entry `above` holds, without positions (writes use it). */
  private seek(above: (key: Key, id: string) => boolean): [number, number] | undefined {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.chunks[mid];
      if (above(c.keys[c.keys.length - 1], c.ids[c.ids.length - 1])) hi = mid;
      else lo = mid + 1;
    }
    if (lo === this.chunks.length) return undefined;
    const c = this.chunks[lo];
    let a = 0;
    let b = c.ids.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (above(c.keys[mid], c.ids[mid])) b = mid;
      else a = mid + 1;
    }
    return [lo, a];
  }

  /** The chunk and offset of a position (< count). */
  private locate(pos: number): [number, number] {
    this.ensureStarts();
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return [lo, pos - this.starts[lo]];
  }

  // ---- changes ----

  private insertEntry(key: Key, id: string): void {
    this.changed();
    this.entryCount++;
    if (this.chunks.length === 0) {
      this.chunks.push({ keys: [key], ids: [id] });
      return;
    }
    // The first chunk whose last entry is above (key, id), or the last chunk.
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.chunks[mid];
      if (this.compare(c.keys[c.keys.length - 1], c.ids[c.ids.length - 1], key, id) > 0) hi = mid;
      else lo = mid + 1;
    }
    const c = this.chunks[lo];
    let a = 0;
    let b = c.ids.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (this.compare(c.keys[mid], c.ids[mid], key, id) > 0) b = mid;
      else a = mid + 1;
    }
    c.keys.splice(a, 0, key);
    c.ids.splice(a, 0, id);
    if (c.ids.length > CHUNK_MAX) {
      const half = c.ids.length >> 1;
      this.chunks.splice(lo + 1, 0, { keys: c.keys.splice(half), ids: c.ids.splice(half) });
    }
  }

  private removeEntry(key: Key, id: string): void {
    const at = this.seek((k, i) => this.compare(k, i, key, id) >= 0);
    if (!at) return;
    const [ci, o] = at;
    const c = this.chunks[ci];
    if (c.ids[o] !== id || this.compareKeys(c.keys[o], key) !== 0) return;
    this.changed();
    this.entryCount--;
    c.keys.splice(o, 1);
    c.ids.splice(o, 1);
    if (c.ids.length === 0) this.chunks.splice(ci, 1);
    else if (c.ids.length < CHUNK_MAX / 8 && ci + 1 < this.chunks.length && c.ids.length + this.chunks[ci + 1].ids.length <= CHUNK_MAX) {
      const next = this.chunks[ci + 1];
      c.keys.push(...next.keys);
      c.ids.push(...next.ids);
      this.chunks.splice(ci + 1, 1);
    }
  }

  /** Sorts staged entries in: many by one sort and merge, a few one by one. */
  settle(): void {
    const staged = this.staged;
    if (staged.ids.length === 0) return;
    this.staged = { keys: [], ids: [] };
    if (staged.ids.length < MERGE_MIN && this.entryCount > 0) {
      for (let i = 0; i < staged.ids.length; i++) this.insertEntry(staged.keys[i], staged.ids[i]);
      return;
    }
    const order = Array.from({ length: staged.ids.length }, (_, i) => i);
    order.sort((x, y) => this.compare(staged.keys[x], staged.ids[x], staged.keys[y], staged.ids[y]));
    // Merged with what is there (already sorted) into chunks three-quarters full: room for
    // inserts before the first split.
    const per = (CHUNK_MAX * 3) >> 2;
    const chunks: Chunk[] = [];
    let out: Chunk = { keys: [], ids: [] };
    const put = (key: Key, id: string) => {
      if (out.ids.length === per) {
        chunks.push(out);
        out = { keys: [], ids: [] };
      }
      out.keys.push(key);
      out.ids.push(id);
    };
    let c = 0;
    let o = 0;
    for (const i of order) {
      while (c < this.chunks.length && this.compare(this.chunks[c].keys[o], this.chunks[c].ids[o], staged.keys[i], staged.ids[i]) <= 0) {
        put(this.chunks[c].keys[o], this.chunks[c].ids[o]);
        if (++o === this.chunks[c].ids.length) {
          c++;
          o = 0;
        }
      }
      put(staged.keys[i], staged.ids[i]);
    }
    for (; c < this.chunks.length; c++, o = 0) for (; o < this.chunks[c].ids.length; o++) put(this.chunks[c].keys[o], this.chunks[c].ids[o]);
    if (out.ids.length) chunks.push(out);
    this.chunks = chunks;
    this.entryCount += staged.ids.length;
    this.changed();
  }

  /** Throws a duplicate-key error if adding doc (as id) would break uniqueness. */
  checkUnique(doc: Document, id: string, ns: string): void {
    // The _id index is always unique, although listIndexes does not say so (as in MongoDB).
    if (!this.spec.unique && this.spec.name !== '_id_') return;
    this.settle();
    for (const key of this.keysFor(doc)) {
      // The entries with this key: from the first, while the key stays the same.
      let [ci, o] = this.seek((k) => this.compareKeys(k, key) >= 0) ?? [this.chunks.length, 0];
      for (; ci < this.chunks.length; ++o < this.chunks[ci].ids.length || (ci++, (o = 0))) {
        const c = this.chunks[ci];
        if (this.compareKeys(c.keys[o], key) !== 0) break;
        if (c.ids[o] === id) continue;
        const values = this.fields.map((_, i) => this.part(key, i));
        const keyValue: Record<string, unknown> = {};
        this.fields.forEach(([path], i) => (keyValue[path] = values[i]));
        const shown = this.fields.map(([path], i) => `${path}: ${JSON.stringify(values[i])}`).join(', ');
        throw new MongoServerError('DuplicateKey', `E11000 duplicate key error collection: ${ns} index: ${this.name} dup key: { ${shown} }`, {
          keyPattern: { ...this.spec.key },
          keyValue,
        });
      }
    }
  }

  add(doc: Document, id: string): void {
    this.settle();
    for (const key of this.keysFor(doc)) this.insertEntry(key, id);
  }

  /** Recovery: the document's entries, sorted in at the next read or write. */
  stage(doc: Document, id: string): void {
    for (const key of this.keysFor(doc)) {
      this.staged.keys.push(key);
      this.staged.ids.push(id);
    }
  }

  /** Removes the entries `doc` (stored as id) contributed. */
  remove(doc: Document, id: string): void {
    this.settle();
    for (const key of this.keysFor(doc)) this.removeEntry(key, id);
  }

  clear(): void {
    this.chunks = [];
    this.staged = { keys: [], ids: [] };
    this.entryCount = 0;
    this.changed();
  }

  /** Whether `next` gives the keys `prev` gave (an update that leaves this index alone). */
  sameKeys(prev: Document, next: Document): boolean {
    // The common update (a counter, a status) leaves every indexed field as it was: the same
    // value or reference, or an equal date (an update clones the document it changes).
    if (!this.partial && this.fields.every(([path]) => unchangedField(prev, next, path))) return true;
    const a = this.keysOf(prev);
    const b = this.keysOf(next);
    if (a.length !== b.length) return false;
    for (let t = 0; t < a.length; t++) {
      for (let i = 0; i < a[t].length; i++) if (compareValues(a[t][i], b[t][i]) !== 0 || keyString(a[t][i]) !== keyString(b[t][i])) return false;
    }
    return true;
  }

  // ---- reads ----

  /** How many entries the first n key fields equal one of the given tuples (an upper bound of ids). */
  count(tuples: unknown[][], n: number): number {
    let total = 0;
    for (const t of tuples) {
      const { start, end } = this.bounds(t.slice(0, n));
      total += end - start;
    }
    return total;
  }

  /** Ids whose first n key fields equal one of the given tuples. */
  lookup(tuples: unknown[][], n: number): Set<string> {
    const out = new Set<string>();
    for (const t of tuples) for (const id of this.walk(false, t.slice(0, n))) out.add(id);
    return out;
  }

  /** Positions [start, end) of the entries under an equality prefix and a range of the next field. */
  private bounds(prefix: unknown[], range?: KeyRange): { start: number; end: number; k: number } {
    this.settle();
    if (range) return this.search(prefix, range);
    if (this.memoVersion !== this.version) {
      this.boundsMemo.clear();
      this.memoVersion = this.version;
    }
    const key = IndexStore.tupleKey(prefix, prefix.length);
    let b = this.boundsMemo.get(key);
    if (!b) {
      if (this.boundsMemo.size >= 10_000) this.boundsMemo.clear();
      this.boundsMemo.set(key, (b = this.search(prefix)));
    }
    return b;
  }

  private search(prefix: unknown[], range?: KeyRange): { start: number; end: number; k: number } {
    const k = prefix.length;
    const dirs = this.dirs;
    // Position of an entry against a bound: the prefix, then (if given) a value of field k.
    const cmp = (key: Key, bound: unknown, hasBound: boolean): number => {
      for (let i = 0; i < k; i++) {
        const c = compareValues(this.part(key, i), prefix[i]) * dirs[i];
        if (c) return c;
      }
      return hasBound ? compareValues(this.part(key, k), bound) * dirs[k] : 0;
    };
    const dir = dirs[k] ?? 1;
    const lo = range ? (dir > 0 ? range.lower : range.upper) : undefined;
    const hi = range ? (dir > 0 ? range.upper : range.lower) : undefined;
    return {
      start: this.firstWhere((key) => cmp(key, lo, lo !== undefined) >= 0),
      end: this.firstWhere((key) => cmp(key, hi, hi !== undefined) > 0),
      k,
    };
  }

  /** Entries a walk with this prefix and range reads (an upper bound of the documents it yields). */
  rangeCount(prefix: unknown[], range?: KeyRange): number {
    const { start, end } = this.bounds(prefix, range);
    return end - start;
  }

  /**
   * Ids in index order (or reverse), restricted to entries whose first prefix.length fields equal
   * prefix and, optionally, whose next field lies in range. A walk paused between reads (a
   * cursor between batches) while entries changed resumes right after the last entry it gave,
   * so it neither repeats nor skips entries that stayed, and reads those added ahead of it.
   */
  *walk(reverse: boolean, prefix: unknown[] = [], range?: KeyRange): Generator<string> {
    let { start, end, k } = this.bounds(prefix, range);
    if (start >= end) return;
    let version = this.version;
    const seen = this.multikey ? new Set<string>() : undefined;
    let left = end - start;
    let [ci, o] = this.locate(reverse ? end - 1 : start);
    while (left > 0) {
      const c = this.chunks[ci];
      const key = c.keys[o];
      const id = c.ids[o];
      left--;
      if (reverse) {
        if (--o < 0 && --ci >= 0) o = this.chunks[ci].ids.length - 1;
      } else if (++o >= c.ids.length) {
        ci++;
        o = 0;
      }
      if (range && !range.test(this.part(key, k))) continue;
      if (seen) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      yield id;
      if (this.version !== version || this.staged.ids.length) {
        ({ start, end, k } = this.bounds(prefix, range));
        version = this.version;
        const next = reverse
          ? this.firstWhere((kk, ii) => this.compare(kk, ii, key, id) >= 0) - 1
          : this.firstWhere((kk, ii) => this.compare(kk, ii, key, id) > 0);
        left = reverse ? next - start + 1 : end - next;
        if (left > 0) [ci, o] = this.locate(next);
      }
    }
  }
}

/** Whether a top-level field holds the same value (or reference) in both documents. */
function unchangedField(prev: Document, next: Document, path: string): boolean {
  if (path.indexOf('.') >= 0) return false;
  const a = prev[path];
  const b = next[path];
  return a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());
}
