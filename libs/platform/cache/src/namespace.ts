/**
 * One namespace of the process's cache (docs/decisions/0045-one-cache-abstraction.md): a bounded
 * map, least recently used first out, whose entries are fresh for `freshMs`, then served stale for
 * `staleMs` while one refresh runs, and valid only under the stamp they were stored with (an
 * access stamp, a catalog version, a principal object: whatever the caller names as what the
 * value was read under). Loads are single-flight (requests that miss together share one load; a
 * failed load is not remembered). Counts hits, stale hits, misses, loads, load errors and
 * evictions for the metrics (`registerCacheMetrics`).
 */

/** What a namespace is, as declared beside the code that uses it: the docs' table of caches is rendered from these. */
export interface CacheSpec {
  /** `<owner>.<what>`: the metrics' `namespace` label, unique in a process. */
  name: string;
  /** What an entry holds, and what for. */
  keeps: string;
  /** Most entries kept (0: the namespace is off, every call loads). */
  maxEntries: number;
  /** The config setting that replaces `maxEntries`, when there is one. */
  maxEntriesSetting?: string;
  /** How long an entry is served as fresh (Infinity: until invalidated or evicted). */
  freshMs: number;
  /** The config setting that replaces `freshMs`, when there is one. */
  freshMsSetting?: string;
  /** How long past fresh an entry is still served while one refresh runs (default 0: never stale). */
  staleMs?: number;
  /** What else ends an entry: the stamp it is checked against, an owner's rule. */
  invalidation: string;
  /**
   * `second-ask`: a loaded value is kept only when its key was asked for before (a doorkeeper of
   * keys asked once, at most four times the bound, emptied when full): for keys most of which are
   * asked for once. Default `always`.
   */
  admission?: 'always' | 'second-ask';
}

/** Counts since the namespace was made (the metrics read them at each scrape). */
export interface CacheCounts {
  hits: number;
  staleHits: number;
  misses: number;
  loads: number;
  loadErrors: number;
  evictions: number;
}

/** What the metrics read of a namespace. */
export interface NamespaceStats {
  readonly name: string;
  readonly counts: CacheCounts;
  readonly size: number;
}

export interface CallOptions {
  /** What the value is read under; an entry stored under another stamp is a miss (compared with ===, arrays item by item). */
  stamp?: unknown;
  /** The time of the call (tests; defaults to Date.now()). */
  now?: number;
}

export interface ThroughOptions<V> extends CallOptions {
  /** The latest time the loaded value may be served (besides `freshMs` from the start of its load). */
  freshUntil?: (value: V) => number;
}

interface Entry<V> {
  value: V;
  stamp: unknown;
  freshUntil: number;
  staleUntil: number;
}

interface Loading<V> {
  stamp: unknown;
  value: Promise<V>;
}

const NO_OPTIONS: CallOptions = {};

/** Whether two stamps are the same: identical, or arrays of identical items. */
function sameStamp(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether `e` is fresh at `now` (the clock is read only for an entry that can expire). */
function fresh(e: Entry<unknown>, now: number | undefined): boolean {
  return e.freshUntil === Infinity || (now ?? Date.now()) < e.freshUntil;
}

export interface NamespaceOptions<K, V> {
  /** The process's bound (from config), replacing the spec's. */
  maxEntries?: number;
  /** The process's freshness (from config), replacing the spec's. */
  freshMs?: number;
  /** Called when an entry leaves (evicted, replaced, expired, deleted, cleared). */
  onDrop?: (key: K, value: V) => void;
}

export class CacheNamespace<K, V> implements NamespaceStats {
  readonly maxEntries: number;
  readonly freshMs: number;
  readonly staleMs: number;
  readonly counts: CacheCounts = { hits: 0, staleHits: 0, misses: 0, loads: 0, loadErrors: 0, evictions: 0 };
  private readonly entries = new Map<K, Entry<V>>();
  private readonly loading = new Map<K, Loading<V>>();
  /** Keys asked for once since the doorkeeper was last emptied (`second-ask` admission). */
  private readonly askedOnce?: Set<K>;
  private readonly onDrop?: (key: K, value: V) => void;

  constructor(
    readonly spec: CacheSpec,
    opts: NamespaceOptions<K, V> = {},
  ) {
    this.maxEntries = opts.maxEntries ?? spec.maxEntries;
    this.freshMs = opts.freshMs ?? spec.freshMs;
    this.staleMs = spec.staleMs ?? 0;
    this.onDrop = opts.onDrop;
    if (spec.admission === 'second-ask') this.askedOnce = new Set();
  }

  get name(): string {
    return this.spec.name;
  }

  /** False when the bound is 0: nothing is kept, every `through` loads. */
  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  /** Entries held (expired ones too, until asked for or evicted). */
  get size(): number {
    return this.entries.size;
  }

  /** The fresh value under `stamp`, counted as a hit or a miss; an expired or otherwise stamped entry is dropped. */
  get(key: K, opts: CallOptions = NO_OPTIONS): V | undefined {
    const e = this.entries.get(key);
    if (e && sameStamp(e.stamp, opts.stamp) && fresh(e, opts.now)) {
      this.touch(key, e);
      this.counts.hits++;
      return e.value;
    }
    if (e) this.drop(key, e);
    this.counts.misses++;
    return undefined;
  }

  /** The fresh value whatever its stamp, with the stamp it was stored under: not counted, not made recent. */
  peek(key: K, now?: number): { value: V; stamp: unknown } | undefined {
    const e = this.entries.get(key);
    return e && fresh(e, now) ? { value: e.value, stamp: e.stamp } : undefined;
  }

  /** Whether a fresh entry is held under `stamp` (not counted, not made recent). */
  has(key: K, opts: CallOptions = NO_OPTIONS): boolean {
    const e = this.entries.get(key);
    return !!e && sameStamp(e.stamp, opts.stamp) && fresh(e, opts.now);
  }

  /** Keeps `value` under `stamp`, fresh for `freshMs` from `now` (or until `freshUntil`, whichever is first). */
  set(key: K, value: V, opts: CallOptions & { freshUntil?: number } = {}): void {
    if (!this.enabled) return;
    const now = opts.now ?? Date.now();
    const freshUntil = Math.min(now + this.freshMs, opts.freshUntil ?? Infinity);
    if (freshUntil <= now) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    else if (this.entries.size >= this.maxEntries) this.evictOne();
    this.entries.set(key, { value, stamp: opts.stamp, freshUntil, staleUntil: freshUntil + this.staleMs });
  }

  /**
   * The value for `key` under `stamp`: fresh from memory; stale from memory while one refresh
   * runs; else from `load`, shared with every request that misses while it runs. A failed load is
   * not remembered (its error goes to those requests only).
   */
  through(key: K, load: () => Promise<V>, opts: ThroughOptions<V> = {}): Promise<V> {
    if (!this.enabled) {
      this.counts.misses++;
      return this.load(key, load, opts, Date.now(), false);
    }
    const now = opts.now ?? Date.now();
    const e = this.entries.get(key);
    if (e && sameStamp(e.stamp, opts.stamp)) {
      if (now < e.freshUntil) {
        this.touch(key, e);
        this.counts.hits++;
        return Promise.resolve(e.value);
      }
      if (now < e.staleUntil) {
        this.touch(key, e);
        this.counts.staleHits++;
        const running = this.loading.get(key);
        if (!running || !sameStamp(running.stamp, opts.stamp)) this.load(key, load, opts, now, true).catch(() => undefined);
        return Promise.resolve(e.value);
      }
    }
    this.counts.misses++;
    const running = this.loading.get(key);
    if (running && sameStamp(running.stamp, opts.stamp)) return running.value;
    // A key held before (whatever its state) stays admitted; a first ask only shares its load.
    const keep = e !== undefined || this.admit(key);
    if (e) this.drop(key, e);
    return this.load(key, load, opts, now, keep);
  }

  /** Forgets `key` (a load under way still answers the requests that wait for it, and is not kept). */
  delete(key: K): void {
    const e = this.entries.get(key);
    if (e) this.drop(key, e);
    this.loading.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    const all = [...this.entries];
    this.entries.clear();
    this.loading.clear();
    this.askedOnce?.clear();
    if (this.onDrop) for (const [k, e] of all) this.onDrop(k, e.value);
  }

  private load(key: K, load: () => Promise<V>, opts: ThroughOptions<V>, now: number, keep: boolean): Promise<V> {
    this.counts.loads++;
    const stamp = opts.stamp;
    const loading: Loading<V> = { stamp, value: undefined as unknown as Promise<V> };
    // The stamp is taken before the load: a change after it makes the entry unusable.
    loading.value = load().then(
      (value) => {
        if (this.loading.get(key) !== loading) return value; // deleted, cleared or superseded meanwhile
        this.loading.delete(key);
        if (keep) this.set(key, value, { stamp, now, freshUntil: opts.freshUntil?.(value) });
        return value;
      },
      (err: unknown) => {
        this.counts.loadErrors++;
        if (this.loading.get(key) === loading) this.loading.delete(key);
        throw err;
      },
    );
    if (this.enabled) this.loading.set(key, loading);
    return loading.value;
  }

  private admit(key: K): boolean {
    const once = this.askedOnce;
    if (!once || once.delete(key)) return true;
    if (once.size >= 4 * this.maxEntries) once.clear();
    once.add(key);
    return false;
  }

  /** Most recently used last. */
  private touch(key: K, e: Entry<V>): void {
    this.entries.delete(key);
    this.entries.set(key, e);
  }

  private evictOne(): void {
    const first = this.entries.entries().next();
    if (first.done) return;
    this.counts.evictions++;
    this.drop(first.value[0], first.value[1]);
  }

  private drop(key: K, e: Entry<V>): void {
    this.entries.delete(key);
    this.onDrop?.(key, e.value);
  }
}
