/**
 * One secondary (or _id) index: key extraction with multikey expansion, equality maps for every
 * key prefix, a sorted entry list for range scans and ordered walks (writes since the last walk
 * are merged in at the next one: a few by binary search, many by one sort), and the unique,
 * sparse and partial-filter rules. Documents are referred to by their _id key string.
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

interface Entry {
  values: unknown[];
  id: string;
  /** Order of addition: equal keys are kept in it, which makes the order total (a walk resumes by it). */
  seq: number;
}

const SEP = '\u0000';

/**
 * The ids under one key: the id itself while there is one (most keys of most indexes: a Set per
 * document cost about 100 bytes each), a Set from the second on.
 */
type Holders = string | Set<string>;

function hold(map: Map<string, Holders>, key: string, id: string): void {
  const cur = map.get(key);
  if (cur === undefined) map.set(key, id);
  else if (typeof cur === 'string') {
    if (cur !== id) map.set(key, new Set([cur, id]));
  } else cur.add(id);
}

function release(map: Map<string, Holders>, key: string, id: string): void {
  const cur = map.get(key);
  if (cur === undefined) return;
  if (typeof cur === 'string') {
    if (cur === id) map.delete(key);
    return;
  }
  cur.delete(id);
  if (cur.size === 1) map.set(key, cur.values().next().value!);
  else if (cur.size === 0) map.delete(key);
}

const holderCount = (h: Holders | undefined): number => (h === undefined ? 0 : typeof h === 'string' ? 1 : h.size);
const holderIds = (h: Holders | undefined): Iterable<string> => (h === undefined ? [] : typeof h === 'string' ? [h] : h);

export class IndexStore {
  readonly spec: IndexSpec;
  readonly fields: Array<[string, number]>;
  private readonly partial?: Query;
  /** prefixMaps[i]: key string of the first i+1 fields -> ids. */
  private readonly prefixMaps: Array<Map<string, Holders>>;
  /** Sorted, but for `dead` entries (removed, dropped at the next walk). */
  private entries: Entry[] = [];
  /** Added since the last walk, in insertion order. */
  private pending: Entry[] = [];
  private sorted = true;
  /** bounds() of equality prefixes over the current sorted entries. */
  private readonly boundsMemo = new Map<string, { start: number; end: number; k: number }>();
  private readonly dead = new Set<Entry>();
  /** id -> the entry (or, multikey, the entries) that id contributed (for removal). */
  private readonly byId = new Map<string, Entry | Entry[]>();
  private nextSeq = 0;
  /** Changed whenever `entries` is rearranged: a paused walk then finds its place again. */
  private layout = 0;
  /** Some document gave more than one key (an array): walks must drop repeated ids. */
  multikey = false;

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.entries(spec.key).map(([path, dir]) => [path, typeof dir === 'number' && dir < 0 ? -1 : 1]);
    this.prefixMaps = this.fields.map(() => new Map());
    if (spec.partialFilterExpression) this.partial = new Query(spec.partialFilterExpression, mingoOptions());
  }

  get name(): string {
    return this.spec.name;
  }

  /** Usable by the planner: it holds every document. */
  get complete(): boolean {
    return !this.spec.sparse && !this.partial;
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

  private static tupleKey(values: unknown[], n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += (i ? SEP : '') + keyString(values[i]);
    return s;
  }

  /** Throws a duplicate-key error if adding doc (as id) would break uniqueness. */
  checkUnique(doc: Document, id: string, ns: string): void {
    // The _id index is always unique, although listIndexes does not say so (as in MongoDB).
    if (!this.spec.unique && this.spec.name !== '_id_') return;
    const full = this.fields.length - 1;
    for (const values of this.keysOf(doc)) {
      const holders = this.prefixMaps[full].get(IndexStore.tupleKey(values, this.fields.length));
      for (const other of holderIds(holders)) {
        if (other === id) continue;
        const keyValue: Record<string, unknown> = {};
        this.fields.forEach(([path], i) => (keyValue[path] = values[i]));
        const shown = this.fields.map(([path], i) => `${path}: ${JSON.stringify(values[i])}`).join(', ');
        throw new MongoServerError(
          'DuplicateKey',
          `E11000 duplicate key error collection: ${ns} index: ${this.name} dup key: { ${shown} }`,
          { keyPattern: { ...this.spec.key }, keyValue },
        );
      }
    }
  }

  add(doc: Document, id: string): void {
    const mine: Entry[] = [];
    const tuples = this.keysOf(doc);
    // Only multikey documents (arrays) can yield one key twice.
    const seen = tuples.length > 1 ? new Set<string>() : undefined;
    if (seen) this.multikey = true;
    for (const values of tuples) {
      const full = IndexStore.tupleKey(values, this.fields.length);
      if (seen) {
        if (seen.has(full)) continue;
        seen.add(full);
      }
      for (let n = 1; n <= this.fields.length; n++) {
        hold(this.prefixMaps[n - 1], n === this.fields.length ? full : IndexStore.tupleKey(values, n), id);
      }
      const e = { values, id, seq: this.nextSeq++ };
      mine.push(e);
      this.pending.push(e);
      this.sorted = false;
    }
    if (mine.length) this.byId.set(id, mine.length === 1 ? mine[0] : mine);
  }

  remove(id: string): void {
    const held = this.byId.get(id);
    if (!held) return;
    this.byId.delete(id);
    const mine = Array.isArray(held) ? held : [held];
    for (const e of mine) {
      for (let n = 1; n <= this.fields.length; n++) release(this.prefixMaps[n - 1], IndexStore.tupleKey(e.values, n), id);
    }
    // Entries are dropped from the sorted list lazily, at the next ordered walk.
    for (const e of mine) this.dead.add(e);
    this.sorted = false;
  }

  clear(): void {
    this.prefixMaps.forEach((m) => m.clear());
    this.byId.clear();
    this.dead.clear();
    this.entries = [];
    this.pending = [];
    this.boundsMemo.clear();
    this.layout++;
  }

  /** How many entries the first n key fields equal one of the given tuples (an upper bound of ids). */
  count(tuples: unknown[][], n: number): number {
    let total = 0;
    for (const t of tuples) total += holderCount(this.prefixMaps[n - 1].get(IndexStore.tupleKey(t, n)));
    return total;
  }

  /** Ids whose first n key fields equal one of the given tuples. */
  lookup(tuples: unknown[][], n: number): Set<string> {
    const out = new Set<string>();
    for (const t of tuples) {
      for (const id of holderIds(this.prefixMaps[n - 1].get(IndexStore.tupleKey(t, n)))) out.add(id);
    }
    return out;
  }

  /** Index order of two entries; equal keys keep their order of addition. */
  private order(a: Entry, b: Entry): number {
    for (let i = 0; i < this.fields.length; i++) {
      const c = compareValues(a.values[i], b.values[i]);
      if (c) return c * this.fields[i][1];
    }
    return a.seq - b.seq;
  }

  /** The first position in `entries` whose key is above e's (strict) or at least e's. */
  private position(e: Entry, strict: boolean): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.order(this.entries[mid], e);
      if (strict ? c > 0 : c >= 0) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Few changes since the last walk are spliced in by binary search; many are merged by one sort. */
  private static readonly SPLICE_MAX = 64;

  private ensureSorted(): void {
    if (this.sorted) return;
    this.boundsMemo.clear();
    const pending = this.pending.filter((e) => !this.dead.delete(e));
    this.pending = [];
    if (pending.length + this.dead.size <= IndexStore.SPLICE_MAX) {
      for (const e of this.dead) {
        for (let i = this.position(e, false); i < this.entries.length; i++) {
          if (this.entries[i] === e) {
            this.entries.splice(i, 1);
            break;
          }
        }
      }
      for (const e of pending) this.entries.splice(this.position(e, true), 0, e);
    } else {
      if (this.dead.size) this.entries = this.entries.filter((e) => !this.dead.has(e));
      for (const e of pending) this.entries.push(e);
      this.entries.sort((a, b) => this.order(a, b));
    }
    this.dead.clear();
    this.sorted = true;
    this.layout++;
  }

  /** Whether `doc` gives the same keys id holds now (an update that leaves this index alone). */
  sameKeys(doc: Document, id: string): boolean {
    const held = this.byId.get(id);
    const tuples = this.keysOf(doc);
    if (!held) return tuples.length === 0;
    const mine = Array.isArray(held) ? held : [held];
    if (mine.length !== tuples.length || mine.length !== 1) return false;
    const [a] = mine;
    const [b] = tuples;
    for (let i = 0; i < b.length; i++) if (compareValues(a.values[i], b[i]) !== 0 || keyString(a.values[i]) !== keyString(b[i])) return false;
    return true;
  }

  /** Positions [start, end) of the sorted entries under an equality prefix and a range of the next field (binary search). */
  private bounds(prefix: unknown[], range?: KeyRange): { start: number; end: number; k: number } {
    this.ensureSorted();
    if (range) return this.search(prefix, range);
    // Equality prefixes repeat from query to query ($in over the same programs): remembered
    // until the entries change.
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
    const dirs = this.fields.map(([, d]) => d);
    // Position of an entry against a bound: the prefix, then (if given) a value of field k.
    const cmp = (e: Entry, bound: unknown, hasBound: boolean): number => {
      for (let i = 0; i < k; i++) {
        const c = compareValues(e.values[i], prefix[i]) * dirs[i];
        if (c) return c;
      }
      return hasBound ? compareValues(e.values[k], bound) * dirs[k] : 0;
    };
    const n = this.entries.length;
    const firstAtLeast = (bound: unknown, has: boolean, strict: boolean) => {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const c = cmp(this.entries[mid], bound, has);
        if (strict ? c > 0 : c >= 0) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    const dir = dirs[k] ?? 1;
    const lo = range ? (dir > 0 ? range.lower : range.upper) : undefined;
    const hi = range ? (dir > 0 ? range.upper : range.lower) : undefined;
    return { start: firstAtLeast(lo, lo !== undefined, false), end: firstAtLeast(hi, hi !== undefined, true), k };
  }

  /** Entries a walk with this prefix and range reads (an upper bound of the documents it yields). */
  rangeCount(prefix: unknown[], range?: KeyRange): number {
    const { start, end } = this.bounds(prefix, range);
    return end - start;
  }

  /**
   * Ids in index order (or reverse), restricted to entries whose first prefix.length fields equal
   * prefix and, optionally, whose next field lies in range. A walk paused between reads (a
   * cursor between batches) while the entries were rearranged resumes right after the last
   * entry it gave, so it neither repeats nor skips entries that stayed.
   */
  *walk(reverse: boolean, prefix: unknown[] = [], range?: KeyRange): Generator<string> {
    let { start, end, k } = this.bounds(prefix, range);
    let layout = this.layout;
    const seen = this.multikey ? new Set<string>() : undefined;
    let i = reverse ? end - 1 : start;
    while (reverse ? i >= start : i < end) {
      const e = this.entries[i];
      i += reverse ? -1 : 1;
      if (range && !range.test(e.values[k])) continue;
      if (seen) {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
      }
      yield e.id;
      // Writes while paused: merge them in (an entry added ahead is then read) and find our place.
      if (this.layout !== layout || !this.sorted) {
        ({ start, end, k } = this.bounds(prefix, range));
        layout = this.layout;
        i = reverse ? this.position(e, false) - 1 : this.position(e, true);
      }
    }
  }

  get size(): number {
    return this.byId.size;
  }
}
