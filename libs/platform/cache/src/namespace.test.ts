import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CacheNamespace, type CacheSpec } from './namespace';
import { registerCacheMetrics } from './metrics';
import { cacheTableRows, readMarkdownTable, renderCacheTable } from './table';

const spec = (over: Partial<CacheSpec> = {}): CacheSpec => ({
  name: 'test.values',
  keeps: 'numbers',
  maxEntries: 10,
  freshMs: 1000,
  invalidation: 'never',
  ...over,
});

/** A load that counts itself: each call answers the next number. */
function counter() {
  let n = 0;
  return { load: () => Promise.resolve(++n), calls: () => n };
}

describe('a cache namespace', () => {
  it('keeps at most its bound, the least recently used entry going first', () => {
    const ns = new CacheNamespace<string, number>(spec({ maxEntries: 2 }));
    ns.set('a', 1, { now: 0 });
    ns.set('b', 2, { now: 0 });
    expect(ns.get('a', { now: 1 })).toBe(1); // a is now the most recent
    ns.set('c', 3, { now: 2 });
    expect(ns.size).toBe(2);
    expect(ns.get('b', { now: 3 })).toBeUndefined();
    expect(ns.get('a', { now: 3 })).toBe(1);
    expect(ns.counts.evictions).toBe(1);
  });

  it('answers an entry while fresh only', () => {
    const ns = new CacheNamespace<string, number>(spec({ freshMs: 100 }));
    ns.set('a', 1, { now: 0 });
    expect(ns.get('a', { now: 99 })).toBe(1);
    expect(ns.get('a', { now: 100 })).toBeUndefined();
    ns.set('b', 2, { now: 0, freshUntil: 10 }); // the value's own limit comes first
    expect(ns.get('b', { now: 10 })).toBeUndefined();
  });

  it('answers an entry only under the stamp it was stored with', () => {
    const ns = new CacheNamespace<string, number>(spec());
    const principal = {};
    ns.set('a', 1, { stamp: [principal, 'v1'], now: 0 });
    expect(ns.get('a', { stamp: [principal, 'v1'], now: 1 })).toBe(1);
    expect(ns.get('a', { stamp: [{}, 'v1'], now: 1 })).toBeUndefined(); // another object: gone
    ns.set('a', 1, { stamp: 'v1', now: 0 });
    expect(ns.get('a', { stamp: 'v2', now: 1 })).toBeUndefined();
    expect(ns.get('a', { stamp: 'v1', now: 1 })).toBeUndefined(); // dropped by the changed stamp
  });

  it('loads once for requests that miss together, and forgets a failed load', async () => {
    const ns = new CacheNamespace<string, number>(spec());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loads = 0;
    const load = async () => {
      loads++;
      await gate;
      return loads;
    };
    const both = Promise.all([ns.through('k', load, { now: 0 }), ns.through('k', load, { now: 1 })]);
    release();
    expect(await both).toEqual([1, 1]);
    expect(loads).toBe(1);
    await expect(ns.through('x', () => Promise.reject(new Error('away')), { now: 0 })).rejects.toThrow('away');
    expect(await ns.through('x', () => Promise.resolve(7), { now: 0 })).toBe(7);
    expect(ns.counts).toMatchObject({ loads: 3, loadErrors: 1 });
  });

  it('does not share a load under another stamp', async () => {
    const ns = new CacheNamespace<string, number>(spec());
    const c = counter();
    const [a, b] = await Promise.all([ns.through('k', c.load, { stamp: 'v1' }), ns.through('k', c.load, { stamp: 'v2' })]);
    expect([a, b]).toEqual([1, 2]);
    expect(await ns.through('k', c.load, { stamp: 'v2' })).toBe(2);
  });

  it('serves a stale entry while one refresh runs, then the refreshed value', async () => {
    const ns = new CacheNamespace<string, number>(spec({ freshMs: 100, staleMs: 1000 }));
    let release!: () => void;
    let gate = Promise.resolve();
    let loads = 0;
    const load = async () => {
      loads++;
      await gate;
      return loads;
    };
    expect(await ns.through('k', load, { now: 0 })).toBe(1);
    gate = new Promise<void>((r) => (release = r));
    expect(await ns.through('k', load, { now: 150 })).toBe(1); // stale: served, one refresh started
    expect(await ns.through('k', load, { now: 160 })).toBe(1); // still stale, the same refresh
    expect(loads).toBe(2);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(await ns.through('k', load, { now: 170 })).toBe(2);
    expect(await ns.through('k', load, { now: 2000 })).toBe(3); // past stale too: loaded while the caller waits
    expect(ns.counts).toMatchObject({ staleHits: 2, loads: 3 });
  });

  it('keeps a loaded value from the second ask of its key when so declared', async () => {
    const ns = new CacheNamespace<string, number>(spec({ admission: 'second-ask' }));
    const c = counter();
    expect(await ns.through('k', c.load, { now: 0 })).toBe(1);
    expect(ns.size).toBe(0);
    expect(await ns.through('k', c.load, { now: 0 })).toBe(2);
    expect(await ns.through('k', c.load, { now: 0 })).toBe(2);
  });

  it('keeps nothing when its bound is 0', async () => {
    const ns = new CacheNamespace<string, number>(spec(), { maxEntries: 0 });
    const c = counter();
    await ns.through('k', c.load);
    ns.set('k', 5);
    expect(await ns.through('k', c.load)).toBe(2);
    expect(ns.size).toBe(0);
  });

  it('tells its owner of every entry that leaves', () => {
    const gone: string[] = [];
    const ns = new CacheNamespace<string, number>(spec({ maxEntries: 2 }), { onDrop: (k) => gone.push(k) });
    ns.set('a', 1, { now: 0 });
    ns.set('b', 2, { now: 0 });
    ns.set('b', 3, { now: 0 }); // replaced
    ns.set('c', 4, { now: 0 }); // evicts a
    ns.delete('c');
    ns.clear();
    expect(gone).toEqual(['b', 'a', 'c', 'b']);
  });
});

describe('the caches metrics', () => {
  it('counts hits, misses, stale hits, loads and evictions per namespace, and the entries held', async () => {
    const registry = new Registry();
    const a = new CacheNamespace<string, number>(spec({ name: 'test.a', maxEntries: 1 }));
    const b = new CacheNamespace<string, number>(spec({ name: 'test.b' }));
    registerCacheMetrics(registry, () => [a, b]);
    await a.through('x', () => Promise.resolve(1), { now: 0 });
    await a.through('x', () => Promise.resolve(1), { now: 1 });
    a.set('y', 2, { now: 2 });
    b.get('z');
    const text = await registry.metrics();
    expect(text).toContain('cache_events_total{namespace="test.a",event="hit"} 1');
    expect(text).toContain('cache_events_total{namespace="test.a",event="miss"} 1');
    expect(text).toContain('cache_events_total{namespace="test.a",event="load"} 1');
    expect(text).toContain('cache_events_total{namespace="test.a",event="eviction"} 1');
    expect(text).toContain('cache_events_total{namespace="test.b",event="miss"} 1');
    expect(text).toContain('cache_entries{namespace="test.a"} 1');
    expect(text).toContain('cache_entries{namespace="test.b"} 0');
  });
});

describe('the table of caches', () => {
  it('renders every declaration, and reads back from markdown as the same cells', () => {
    const specs = [spec({ maxEntriesSetting: 'TEST_ENTRIES', invalidation: 'a | b' }), spec({ name: 'test.other', freshMs: Infinity, staleMs: 5000 })];
    const md = `# Caches\n\n## The table\n\n${renderCacheTable(specs)}\n\nAfter.\n`;
    expect(readMarkdownTable(md, '## The table')).toEqual(cacheTableRows(specs));
    expect(cacheTableRows(specs)[2]).toEqual(['`test.other`', 'numbers', '10', 'no limit', '5 s', 'never']);
  });
});
