import { describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { PageCache } from './page-cache';

function principal(id: string, catalog: { v: string | null }): Principal {
  return { publisher: { _id: id } as Principal['publisher'], credentialId: 'c', prefix: 'p', type: 'api_key', catalogStamp: () => catalog.v };
}

/** A cache whose builds count themselves; each build's page stays fresh until `validUntil`. */
function counting(cache: PageCache<number>, validUntil = Infinity) {
  let builds = 0;
  return {
    get: (p: Principal, key: string, now: number) => cache.through(p, key, async () => ({ value: ++builds, validUntil }), now),
    builds: () => builds,
  };
}

describe('product page cache', () => {
  it('serves a page again only to the same cached principal under the same catalog version', async () => {
    const catalog = { v: 'e.1' as string | null };
    const c = counting(new PageCache<number>(10, 5000));
    const p = principal('pub_a', catalog);
    expect(await c.get(p, 'k', 0)).toBe(1);
    expect(await c.get(p, 'k', 1)).toBe(1);
    catalog.v = 'e.2'; // a catalog write
    expect(await c.get(p, 'k', 2)).toBe(2);
    const reloaded = principal('pub_a', catalog); // its access stamp changed: a new principal object
    expect(await c.get(reloaded, 'k', 3)).toBe(3);
    expect(await c.get(principal('pub_b', catalog), 'k', 4)).toBe(4);
  });

  it('never serves a page past its first row leaving the freshness window, nor past the maximum age', async () => {
    const catalog = { v: 'e.1' };
    const fresh = counting(new PageCache<number>(10, 5000), 100);
    const p = principal('pub_a', catalog);
    expect(await fresh.get(p, 'k', 0)).toBe(1);
    expect(await fresh.get(p, 'k', 99)).toBe(1);
    expect(await fresh.get(p, 'k', 100)).toBe(2);
    const aged = counting(new PageCache<number>(10, 5000));
    expect(await aged.get(p, 'k', 0)).toBe(1);
    expect(await aged.get(p, 'k', 4999)).toBe(1);
    expect(await aged.get(p, 'k', 5000)).toBe(2);
  });

  it('caches nothing without a trusted catalog version, or when turned off', async () => {
    const untrusted = counting(new PageCache<number>(10, 5000));
    const p = principal('pub_a', { v: null });
    await untrusted.get(p, 'k', 0);
    expect(await untrusted.get(p, 'k', 1)).toBe(2);
    const uncached = { ...p, catalogStamp: undefined };
    expect(await untrusted.get(uncached, 'k', 2)).toBe(3);
    const off = counting(new PageCache<number>(0, 5000));
    const q = principal('pub_a', { v: 'e.1' });
    await off.get(q, 'k', 0);
    expect(await off.get(q, 'k', 1)).toBe(2);
  });

  it('keeps at most its bound, dropping the least recently used page', async () => {
    const cache = new PageCache<number>(2, 5000);
    const c = counting(cache);
    const p = principal('pub_a', { v: 'e.1' });
    await c.get(p, 'a', 0);
    await c.get(p, 'b', 0);
    await c.get(p, 'a', 1); // a is now the most recent
    await c.get(p, 'c', 2); // drops b
    expect(cache.size).toBe(2);
    expect(await c.get(p, 'a', 3)).toBe(1);
    expect(await c.get(p, 'b', 3)).toBe(4);
  });

  it('lets requests that miss together share one build', async () => {
    const cache = new PageCache<number>(10, 5000);
    const p = principal('pub_a', { v: 'e.1' });
    let builds = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const build = async () => {
      builds++;
      await gate;
      return { value: builds, validUntil: Infinity };
    };
    const both = Promise.all([cache.through(p, 'k', build, 0), cache.through(p, 'k', build, 1)]);
    release();
    expect(await both).toEqual([1, 1]);
    expect(builds).toBe(1);
  });

  it('does not keep a page whose build failed', async () => {
    const cache = new PageCache<number>(10, 5000);
    const p = principal('pub_a', { v: 'e.1' });
    await expect(cache.through(p, 'k', () => Promise.reject(new Error('catalog away')), 0)).rejects.toThrow('catalog away');
    expect(cache.size).toBe(0);
  });
});
