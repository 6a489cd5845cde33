/**
 * Cursor paging's moves on the URL's search params (apart from the hook that navigates): `cursor`
 * is where the page starts, `page_size` its size (left out at the default), and the cursors of the
 * pages before it travel in the history entry's state. Every move but next and previous starts
 * again at the first page.
 */
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from '../api/activity';

/** The history entry's state. */
export interface PagingState {
  cursors?: string[];
}

/** The search params to go to and the cursors of the pages before that one. */
export interface PageMove {
  params: URLSearchParams;
  cursors: string[];
}

/** The page size asked in the URL when it is one offered, else the default. */
export function pageSizeOf(params: URLSearchParams): number {
  const asked = Number(params.get('page_size'));
  return (PAGE_SIZES as readonly number[]).includes(asked) ? asked : DEFAULT_PAGE_SIZE;
}

/** The cursors before this page, from a history entry's state (anything else: none). */
export const cursorStackOf = (state: unknown): string[] => ((state as PagingState | null)?.cursors ?? []).filter((c) => typeof c === 'string');

/** The page at `nextCursor`, remembering where this one started ('' for the first page). */
export function nextPage(params: URLSearchParams, stack: string[], nextCursor: string): PageMove {
  const p = new URLSearchParams(params);
  p.set('cursor', nextCursor);
  return { params: p, cursors: [...stack, params.get('cursor') || ''] };
}

/** The page before: where it started, the first page when that is not known. */
export function previousPage(params: URLSearchParams, stack: string[]): PageMove {
  const p = new URLSearchParams(params);
  const before = stack.at(-1);
  if (before) p.set('cursor', before);
  else p.delete('cursor');
  return { params: p, cursors: stack.slice(0, -1) };
}

/** Another page size: back to the first page, the filters kept. */
export function withPageSize(params: URLSearchParams, size: number): PageMove {
  const p = new URLSearchParams(params);
  p.delete('cursor');
  if (size === DEFAULT_PAGE_SIZE) p.delete('page_size');
  else p.set('page_size', String(size));
  return { params: p, cursors: [] };
}

/** New filters (empty, unset and false ones left out): back to the first page, the page size kept. */
export function withFilters(filters: Record<string, string | boolean | undefined>, pageSize: number): PageMove {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== '' && v !== false) p.set(k, String(v));
  if (pageSize !== DEFAULT_PAGE_SIZE) p.set('page_size', String(pageSize));
  return { params: p, cursors: [] };
}
