/**
 * Cursor paging kept in the URL: `?cursor=` is where the page starts (the API's `next_cursor`),
 * `?page_size=` its size; the cursors of the pages before it ride in the history entry's state,
 * so "Previous page" (and the browser's Back) return exactly; a page opened from a link without
 * them goes back to the first page. Filters live in the same search params: changing one starts
 * at the first page.
 */
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { PAGE_SIZES } from '../api/activity';
import { cursorStackOf, nextPage, pageSizeOf, previousPage, withFilters, withPageSize, type PageMove, type PagingState } from './paging';

export interface CursorPaging {
  cursor: string | undefined;
  pageSize: number;
  hasPrevious: boolean;
  next(cursor: string): void;
  previous(): void;
  setPageSize(size: number): void;
  /** Replaces the filters (every search param but paging), back to the first page. */
  setFilters(filters: Record<string, string | boolean | undefined>): void;
  params: URLSearchParams;
}

export function useCursorPaging(): CursorPaging {
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const cursor = params.get('cursor') || undefined;
  const pageSize = pageSizeOf(params);
  const stack = cursorStackOf(location.state);
  const go = ({ params: p, cursors }: PageMove) =>
    void navigate({ search: p.toString() }, { state: { cursors } satisfies PagingState, preventScrollReset: true });
  return {
    cursor,
    pageSize,
    hasPrevious: cursor !== undefined,
    params,
    next: (nextCursor) => go(nextPage(params, stack, nextCursor)),
    previous: () => go(previousPage(params, stack)),
    setPageSize: (size) => go(withPageSize(params, size)),
    setFilters: (filters) => go(withFilters(filters, pageSize)),
  };
}

/** "Previous page", the page number, "Next page", and the rows per page: buttons that keep the focus while the next page loads. */
export function Pager({
  label,
  paging,
  page,
  nextCursor,
  loading,
  sizeId,
}: {
  /** What is paged, for the navigation's name ("conversions"). */
  label: string;
  paging: CursorPaging;
  page: number;
  nextCursor: string | null;
  loading: boolean;
  sizeId: string;
}) {
  const noPrevious = !paging.hasPrevious || loading;
  const noNext = !nextCursor || loading;
  return (
    <nav className="pager" aria-label={`Pages of ${label}`}>
      <button
        type="button"
        className="button button-secondary button-small"
        aria-disabled={noPrevious || undefined}
        onClick={() => !noPrevious && paging.previous()}
      >
        Previous page
      </button>
      <span className="pager-page" aria-live="polite">
        {loading ? 'Loading…' : `Page ${page}`}
      </span>
      <button
        type="button"
        className="button button-secondary button-small"
        aria-disabled={noNext || undefined}
        onClick={() => !noNext && nextCursor && paging.next(nextCursor)}
      >
        Next page
      </button>
      <span className="inline-field pager-size">
        <label htmlFor={sizeId}>Rows per page</label>
        <select id={sizeId} value={paging.pageSize} onChange={(e) => paging.setPageSize(Number(e.target.value))}>
          {PAGE_SIZES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </span>
    </nav>
  );
}
