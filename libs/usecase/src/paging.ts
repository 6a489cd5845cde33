/** Page-based paging of lists (1-based pages): the input members and the envelope. */
export interface PageEnvelope<T> {
  data: T[];
  page: number;
  page_size: number;
  has_more: boolean;
  next_page: number | null;
}

export const PAGE_INPUT = { type: 'integer', minimum: 1, maximum: 100000, default: 1 } as const;

export const pageSizeInput = <Max extends number>(max: Max) => ({ type: 'integer', minimum: 1, maximum: max, default: 50 }) as const;

/** Rows to skip for a page. */
export const skipFor = (page: number, pageSize: number) => (page - 1) * pageSize;

/**
 * The envelope of one page from page_size + 1 rows read (the extra row only says another page
 * exists, so nothing is counted).
 */
export function pageOf<T>(rows: T[], input: { page: number; page_size: number }): PageEnvelope<T> {
  const more = rows.length > input.page_size;
  return { data: rows.slice(0, input.page_size), page: input.page, page_size: input.page_size, has_more: more, next_page: more ? input.page + 1 : null };
}

/** The response schema of a page-based list: `{data, page, page_size, has_more, next_page}`. */
export function pageEnvelopeSchema(item: Record<string, unknown>) {
  return {
    type: 'object',
    required: ['data', 'page', 'page_size', 'has_more', 'next_page'],
    properties: {
      data: { type: 'array', items: item },
      page: { type: 'integer', minimum: 1 },
      page_size: { type: 'integer', minimum: 1 },
      has_more: { type: 'boolean', description: 'True when page + 1 holds more items.' },
      next_page: { type: ['integer', 'null'], description: 'The next page number, or null on the last page.' },
    },
  } as Record<string, unknown>;
}
