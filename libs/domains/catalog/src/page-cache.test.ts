import { describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { PageCache } from './page-cache';

/** The catalog version each test principal is vouched for under (as the access cache answers it); absent: not vouched for. */
const stamps = new WeakMap<Principal, { v: string | null }>();
const catalogStamp = (p: Principal) => stamps.get(p)?.v ?? null;

function principal(id: string, catalog: { v: string | null }): Principal {
  const p: Principal = { publisher: { _id: id } as Principal['publisher'], credentialId: 'c', prefix: 'p', type: 'api_key' };
  stamps.set(p, catalog);
  return p;
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
  it('keeps a page only when its key is asked for a second time', async () => {
    const cache = new PageCache<number>(catalogStamp, 10, 5000);
    const c = counting(cache);
    const p = principal('pub_a', { v: 'e.1' });
    for (let i = 0; i < 5; i++) await c.get(p, `once-${i}`, 0);
    expect(cache.size).toBe(0); // pages asked for once are built, answered and dropped
    expect(await c.get(p, 'k', 0)).toBe(6);
    expect(await c.get(p, 'k', 1)).toBe(7); // asked again: built and kept
    expect(await c.get(p, 'k', 2)).toBe(7);
    expect(cache.size).toBe(1);
  });

  it('forgets keys asked for once beyond four times its bound', async () => {
    const c = counting(new PageCache<number>(catalogStamp, 2, 5000));
    const p = principal('pub_a', { v: 'e.1' });
    await c.get(p, 'k', 0);
    for (let i = 0; i < 8; i++) await c.get(p, `other-${i}`, 0); // fills the doorkeeper: emptied
    expect(await c.get(p, 'k', 1)).toBe(10); // counted as a first ask again: not kept
    expect(await c.get(p, 'k', 2)).toBe(11);
    expect(await c.get(p, 'k', 3)).toBe(11);
  });

  it('serves a page again only to the same cached principal under the same catalog version', async () => {
    const catalog = { v: 'e.1' as string | null };
    const c = counting(new PageCache<number>(catalogStamp, 10, 5000));
    const p = principal('pub_a', catalog);
    await c.get(p, 'k', 0);
    expect(await c.get(p, 'k', 0)).toBe(2);
    expect(await c.get(p, 'k', 1)).toBe(2);
    catalog.v = 'e.2'; // a catalog write
    expect(await c.get(p, 'k', 2)).toBe(3);
    expect(await c.get(p, 'k', 2)).toBe(3); // a kept page stays admitted across versions
    const reloaded = principal('pub_a', catalog); // its access stamp changed: a new principal object
    expect(await c.get(reloaded, 'k', 3)).toBe(4);
    await c.get(principal('pub_b', catalog), 'k', 4);
    expect(await c.get(principal('pub_b', catalog), 'k', 4)).toBe(6);
  });

  it('never serves a page past its first row leaving the freshness window, nor past the maximum age', async () => {
    const catalog = { v: 'e.1' };
    const fresh = counting(new PageCache<number>(catalogStamp, 10, 5000), 100);
    const p = principal('pub_a', catalog);
    await fresh.get(p, 'k', 0);
    expect(await fresh.get(p, 'k', 0)).toBe(2);
    expect(await fresh.get(p, 'k', 99)).toBe(2);
    expect(await fresh.get(p, 'k', 100)).toBe(3);
    const aged = counting(new PageCache<number>(catalogStamp, 10, 5000));
    await aged.get(p, 'k', 0);
    expect(await aged.get(p, 'k', 0)).toBe(2);
    expect(await aged.get(p, 'k', 4999)).toBe(2);
    expect(await aged.get(p, 'k', 5000)).toBe(3);
  });

  it('caches nothing without a trusted catalog version, or when turned off', async () => {
    const untrusted = counting(new PageCache<number>(catalogStamp, 10, 5000));
    const p = principal('pub_a', { v: null });
    await untrusted.get(p, 'k', 0);
    expect(await untrusted.get(p, 'k', 1)).toBe(2);
    const uncached = { ...p };
    await untrusted.get(uncached, 'k', 2);
    expect(await untrusted.get(uncached, 'k', 2)).toBe(4);
    const off = counting(new PageCache<number>(catalogStamp, 0, 5000));
    const q = principal('pub_a', { v: 'e.1' });
    await off.get(q, 'k', 0);
    await off.get(q, 'k', 1);
    expect(await off.get(q, 'k', 1)).toBe(3);
  });

  it('keeps at most its bound, dropping the least recently used page', async () => {
    const cache = new PageCache<number>(catalogStamp, 2, 5000);
    const c = counting(cache);
    const p = principal('pub_a', { v: 'e.1' });
    const keep = async (key: string, now: number) => (await c.get(p, key, now), c.get(p, key, now));
    await keep('a', 0); // builds 1, 2 (kept)
    await keep('b', 0); // builds 3, 4 (kept)
    await c.get(p, 'a', 1); // a is now the most recent
    await keep('c', 2); // builds 5, 6: drops b
    expect(cache.size).toBe(2);
    expect(await c.get(p, 'a', 3)).toBe(2);
    expect(await c.get(p, 'b', 3)).toBe(7);
  });

  it('lets requests that miss together share one build', async () => {
    const cache = new PageCache<number>(catalogStamp, 10, 5000);
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
    const cache = new PageCache<number>(catalogStamp, 10, 5000);
    const p = principal('pub_a', { v: 'e.1' });
    await expect(cache.through(p, 'k', () => Promise.reject(new Error('catalog away')), 0)).rejects.toThrow('catalog away');
    expect(cache.size).toBe(0);
  });
});
