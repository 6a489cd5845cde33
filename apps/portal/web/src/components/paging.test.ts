import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE } from '../api/activity';
import { cursorStackOf, nextPage, pageSizeOf, previousPage, withFilters, withPageSize } from './paging';

const q = (s: string) => new URLSearchParams(s);

describe('the page size in the URL', () => {
  it('is one of the sizes offered, else the default', () => {
    expect(pageSizeOf(q('page_size=25'))).toBe(25);
    expect(pageSizeOf(q('page_size=7'))).toBe(DEFAULT_PAGE_SIZE);
    expect(pageSizeOf(q('page_size=lots'))).toBe(DEFAULT_PAGE_SIZE);
    expect(pageSizeOf(q(''))).toBe(DEFAULT_PAGE_SIZE);
  });
});

describe('next and previous page', () => {
  it('goes forward two pages and back to exactly the pages it came through, filters kept', () => {
    const first = q('status=approved');
    const second = nextPage(first, [], 'c2');
    expect(second.params.toString()).toBe('status=approved&cursor=c2');
    const third = nextPage(second.params, second.cursors, 'c3');
    expect(third.params.toString()).toBe('status=approved&cursor=c3');
    expect(third.cursors).toEqual(['', 'c2']);
    const back = previousPage(third.params, third.cursors);
    expect(back.params.toString()).toBe('status=approved&cursor=c2');
    const start = previousPage(back.params, back.cursors);
    expect(start.params.toString()).toBe('status=approved');
    expect(start.cursors).toEqual([]);
  });

  it('goes back to the first page from a page opened by a link (no pages before it known)', () => {
    expect(previousPage(q('cursor=c9&page_size=25'), cursorStackOf(null)).params.toString()).toBe('page_size=25');
  });

  it('ignores a history state that is not its own', () => {
    expect(cursorStackOf({ cursors: ['a', 3, null, 'b'] })).toEqual(['a', 'b']);
    expect(cursorStackOf({ other: true })).toEqual([]);
  });
});

describe('changing the page size or the filters', () => {
  it('starts again at the first page; the default size is left out of the URL', () => {
    expect(withPageSize(q('status=approved&cursor=c3'), 25).params.toString()).toBe('status=approved&page_size=25');
    expect(withPageSize(q('status=approved&cursor=c3&page_size=25'), DEFAULT_PAGE_SIZE).params.toString()).toBe('status=approved');
  });

  it('keeps only the filters set (empty, unset and off ones left out) and the page size chosen', () => {
    const move = withFilters({ date_from: '2026-03-01', status: '', subid: undefined, include_bots: false, channel: 'code' }, 100);
    expect(move.params.toString()).toBe('date_from=2026-03-01&channel=code&page_size=100');
    expect(move.cursors).toEqual([]);
    expect(withFilters({ include_bots: true }, DEFAULT_PAGE_SIZE).params.toString()).toBe('include_bots=true');
  });
});
