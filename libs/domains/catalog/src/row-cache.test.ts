import { describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { ProductRows } from './row-cache';
import type { CatalogRow } from './types';

/** The catalog version the test principal is vouched for under (as the access cache answers it). */
let version: string | null = 'e.1';
const principal = { publisher: { _id: 'pub_a' } } as Principal;
const row = (id: string, title = id) => ({ _id: id, title }) as CatalogRow;
const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `p${from + i}`);

describe('product rows held for a catalog version', () => {
  it('answers a row only under the catalog version it was read under', () => {
    version = 'e.1';
    const cache = new ProductRows(() => version, 100);
    const at1 = cache.at(principal)!;
    at1.keepRead([row('p1', 'old title')]);
    expect(cache.at(principal)!.take(['p1', 'p2'])).toEqual({ rows: [row('p1', 'old title'), undefined], missing: ['p2'] });
    version = 'e.2'; // a product write
    const at2 = cache.at(principal)!;
    expect(at2.take(['p1'])).toEqual({ rows: [undefined], missing: ['p1'] });
    // A read that started under the old version keeps nothing: its rows may predate the write.
    at1.keep([row('p1', 'old title')]);
    expect(at2.take(['p1']).missing).toEqual(['p1']);
    at2.keep([row('p1', 'new title')]);
    expect(at2.take(['p1']).rows).toEqual([row('p1', 'new title')]);
  });

  it('holds nothing for a request no version vouches for, or when turned off', () => {
    version = null;
    expect(new ProductRows(() => version, 100).at(principal)).toBeUndefined();
    version = 'e.1';
    expect(new ProductRows(() => version, 0).at(principal)).toBeUndefined();
  });

  it('keeps at most its bound, the oldest rows going first', () => {
    version = 'e.1';
    const cache = new ProductRows(() => version, 3);
    const at = cache.at(principal)!;
    at.keepRead(ids(3).map((id) => row(id)));
    at.keepRead([row('p3')]);
    expect(cache.size).toBe(3);
    expect(at.take(ids(4)).missing).toEqual(['p0']);
  });

  it('reads pages as ids while most rows pages need are held, and whole while most are not', () => {
    version = 'e.1';
    const cache = new ProductRows(() => version, 1000);
    const at = cache.at(principal)!;
    expect(at.idsFirst).toBe(false); // nothing held yet: pages are read whole and kept
    const page = ids(20).map((id) => row(id));
    let reads = 0;
    while (!at.idsFirst) {
      at.keepRead(page); // the same rows again (a walk of pages nobody asked for, over the same products)
      reads++;
    }
    expect(reads).toBeLessThan(10);
    // A walk through rows never held (a market paged through) turns it back to whole reads.
    let walked = 0;
    while (at.idsFirst) {
      at.take(ids(20, 1000 + 20 * walked++));
    }
    expect(walked).toBeLessThan(10);
  });
});
