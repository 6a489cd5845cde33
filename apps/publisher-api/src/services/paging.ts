/** Page-based paging of the programs, links and clicks envelopes (1-based pages). */
export interface PageEnvelope<T> {
  data: T[];
  page: number;
  page_size: number;
  has_more: boolean;
  next_page: number | null;
}

/** Reads page_size + 1 rows to know whether another page exists, without counting. */
export function envelope<T>(rows: T[], page: number, pageSize: number): PageEnvelope<T> {
  const more = rows.length > pageSize;
  return { data: rows.slice(0, pageSize), page, page_size: pageSize, has_more: more, next_page: more ? page + 1 : null };
}

export const skipFor = (page: number, pageSize: number) => (page - 1) * pageSize;

export const PAGE_SCHEMA_PROPS = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['data', 'page', 'page_size', 'has_more', 'next_page'],
  properties: {
    data: { type: 'array', items: item },
    page: { type: 'integer', minimum: 1 },
    page_size: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean', description: 'True when page + 1 holds more items.' },
    next_page: { type: ['integer', 'null'], description: 'The next page number, or null on the last page.' },
  },
});

/** Query parameters of page-based lists. */
export const PAGE_PARAM = { type: 'integer', minimum: 1, maximum: 100000, default: 1 };
export const pageSizeParam = (max: number) => ({ type: 'integer', minimum: 1, maximum: max, default: 50 });
