/**
 * Paging a list by number or by cursor: a cursor continues exactly after the last row it was
 * given for, at any depth, and only for the list, account and filters it was returned for; a page
 * by number deeper than MAX_SKIP rows is refused with the way to go on.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { MAX_SKIP, pageOf, pageWindow, type ListScope, type ListSort } from './paging';

const secret = Buffer.from('a-test-secret-of-enough-length-32');
const scope: ListScope = { list: 'links', account: 'pub_1', secret };
const SORT: ListSort = [
  ['created_at', -1],
  ['_id', -1],
];

interface Row {
  _id: string;
  created_at: Date;
}
// 25 rows, newest first; rows 10 to 14 share one instant (the tie the _id breaks).
const rows: Row[] = Array.from({ length: 25 }, (_, i) => ({
  _id: `lnk_${String(i).padStart(2, '0')}`,
  created_at: new Date(Date.UTC(2026, 0, 1) + (i >= 10 && i < 15 ? 10 : i) * 60_000),
}));

/** The filter operators a window's filter uses, over one row (what the database would match). */
function matches(row: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([k, cond]) => {
    if (k === '$or') return (cond as Array<Record<string, unknown>>).some((f) => matches(row, f));
    if (k === '$and') return (cond as Array<Record<string, unknown>>).every((f) => matches(row, f));
    const v = row[k] as string | Date;
    const ops = cond && typeof cond === 'object' && !(cond instanceof Date) ? (cond as Record<string, string | Date>) : { $eq: cond as string | Date };
    return Object.entries(ops).every(([op, x]) => {
      const a = v instanceof Date ? v.getTime() : v;
      const b = x instanceof Date ? x.getTime() : x;
      return op === '$gt' ? a > b : op === '$gte' ? a >= b : op === '$lt' ? a < b : op === '$lte' ? a <= b : a === b;
    });
  });
}

/** One page as a list reads it: the window's filter and sort over the rows, page_size + 1 of them. */
async function read(input: { page: number; page_size: number; cursor?: string; [k: string]: unknown }, s = scope) {
  const w = pageWindow(s, SORT, input);
  const found = rows
    .filter((r) => matches(r as unknown as Record<string, unknown>, w.filter({})))
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (b._id < a._id ? -1 : b._id > a._id ? 1 : 0))
    .slice(w.skip, w.skip + input.page_size + 1);
  return w.envelope(found, (r) => r.map((x) => x._id));
}

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('not refused');
};

describe('paging by cursor', () => {
  it('walks every row once, in order, across ties, numbering the pages', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    // Bounded: a cursor that does not move on would walk forever.
    for (let n = 0; n < 20; n++) {
      const page = await read({ page: 1, page_size: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data);
      pages.push(page.page);
      if (!page.next_cursor) {
        expect(page.has_more).toBe(false);
        expect(page.next_page).toBeNull();
        break;
      }
      cursor = page.next_cursor;
    }
    const expected = [...rows].sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (b._id < a._id ? -1 : 1)).map((r) => r._id);
    expect(seen).toEqual(expected);
    expect(pages).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('merges the position into the list filter on the same field, and keeps both when they overlap', async () => {
    const next = (await read({ page: 1, page_size: 3 })).next_cursor!;
    const w = pageWindow(scope, SORT, { page: 1, page_size: 3, cursor: next });
    const at = w.after![0] as Date;
    const since = new Date(0);
    // Operators of another kind on the position's field merge into one condition (one index range).
    const merged = w.filter({ created_at: { $gte: since }, status: 'active' });
    expect(merged).toMatchObject({ status: 'active', created_at: { $gte: since, $lte: at } });
    expect(merged.$or).toHaveLength(2);
    // The same operator on it (or another $or) cannot merge: both filters hold, side by side.
    const kept = w.filter({ created_at: { $lte: since } });
    expect(kept).toEqual({ $and: [{ created_at: { $lte: since } }, expect.objectContaining({ created_at: { $lte: at } })] });
    expect(Object.keys(w.filter({ $or: [{ a: 1 }] }))).toEqual(['$and']);
    // Without a cursor the list filter is left as it is.
    expect(pageWindow(scope, SORT, { page: 1, page_size: 3 }).filter({ status: 'active' })).toEqual({ status: 'active' });
  });

  it('refuses a cursor that was tampered with, or returned for another account, list or filter (400 invalid_parameter)', async () => {
    const next = (await read({ page: 1, page_size: 3, subid: 'a' })).next_cursor!;
    expect(next).toMatch(/^c1\./);
    const [v, body, mac] = next.split('.');
    const tampered = `${v}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), p: 99 })).toString('base64url')}.${mac}`;
    for (const [cursor, s, filters] of [
      [tampered, scope, { subid: 'a' }],
      ['garbage', scope, { subid: 'a' }],
      [next, { ...scope, account: 'pub_2' }, { subid: 'a' }],
      [next, { ...scope, list: 'clicks' }, { subid: 'a' }],
      [next, scope, { subid: 'b' }],
      [next, { ...scope, secret: Buffer.from('another-secret-of-enough-length-32') }, { subid: 'a' }],
    ] as const) {
      const e = refusal(() => pageWindow(s, SORT, { page: 1, page_size: 3, cursor, ...filters }));
      expect(e).toBeInstanceOf(ApiError);
      expect(e.code).toBe('invalid_parameter');
      expect(e.errors).toEqual([{ param: 'cursor', detail: expect.any(String) }]);
    }
    // The same cursor with its own filters goes on.
    expect(pageWindow(scope, SORT, { page: 1, page_size: 3, cursor: next, subid: 'a' }).page).toBe(2);
  });

  it('needs a sort that ends with _id (a position must be unique)', () => {
    expect(() => pageWindow(scope, [['created_at', -1]], { page: 1, page_size: 2 })).toThrow(/must end with _id/);
  });
});

describe('paging by number', () => {
  it('skips the pages before, and refuses one deeper than MAX_SKIP rows with page_too_deep naming page', () => {
    expect(pageWindow(scope, SORT, { page: 3, page_size: 10 }).skip).toBe(20);
    expect(pageWindow(scope, SORT, { page: MAX_SKIP / 100 + 1, page_size: 100 }).skip).toBe(MAX_SKIP);
    const e = refusal(() => pageWindow(scope, SORT, { page: MAX_SKIP / 100 + 2, page_size: 100 }));
    expect(e.code).toBe('page_too_deep');
    expect(e.detail).toMatch(/next_cursor/);
    expect(e.errors).toEqual([{ param: 'page', detail: expect.any(String) }]);
  });

  it('pageOf: the extra row read says another page exists, and is not shown', () => {
    expect(pageOf([1, 2, 3], { page: 2, page_size: 2 })).toEqual({ data: [1, 2], page: 2, page_size: 2, has_more: true, next_page: 3 });
    expect(pageOf([1, 2], { page: 2, page_size: 2 })).toEqual({ data: [1, 2], page: 2, page_size: 2, has_more: false, next_page: null });
  });
});
