/**
 * Lists: `await list(...)` is the first page; `for await (const item of list(...))` walks every
 * item to the end (by `next_cursor`, `next_offset` or the next page number, as the list pages).
 */

export class PageIterator<TPage, TItem> implements PromiseLike<TPage>, AsyncIterable<TItem> {
  private first?: Promise<TPage>;

  constructor(
    private readonly fetchPage: (params: Record<string, unknown>) => Promise<TPage>,
    private readonly params: Record<string, unknown>,
    /** The parameters of the page after `page`, or null when it was the last. */
    private readonly nextParams: (page: TPage, params: Record<string, unknown>) => Record<string, unknown> | null,
    private readonly itemsOf: (page: TPage) => TItem[],
  ) {}

  private firstPage(): Promise<TPage> {
    return (this.first ??= this.fetchPage(this.params));
  }

  then<A = TPage, B = never>(
    onFulfilled?: ((page: TPage) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  /** Every page, in order, the first one included. */
  async *pages(): AsyncGenerator<TPage> {
    let params: Record<string, unknown> | null = this.params;
    let page = await this.firstPage();
    for (;;) {
      yield page;
      params = this.nextParams(page, params);
      if (!params) return;
      page = await this.fetchPage(params);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TItem> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Every item in an array (mind the size of the list). */
  async toArray(): Promise<TItem[]> {
    const all: TItem[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/** Lists with `next_cursor` (null on the last page): the next page is `cursor`, `page` dropped. */
export const byCursor = (page: { next_cursor?: string | null }, params: Record<string, unknown>): Record<string, unknown> | null => {
  if (!page.next_cursor) return null;
  const { page: _page, ...rest } = params;
  return { ...rest, cursor: page.next_cursor };
};

/** The events feed: `next_cursor` is always set; `has_more` false means caught up. */
export const byEventCursor = (page: { next_cursor: string; has_more: boolean }, params: Record<string, unknown>) =>
  page.has_more ? { ...params, cursor: page.next_cursor } : null;

/** Product pages: `next_offset` (null on the last page). */
export const byOffset = (page: { next_offset?: number | null }, params: Record<string, unknown>) =>
  page.next_offset === null || page.next_offset === undefined ? null : { ...params, offset: page.next_offset };

/** Page numbers with `has_more`. */
export const byPageNumber = (page: { has_more?: boolean; page?: number }, params: Record<string, unknown>) =>
  page.has_more ? { ...params, page: (page.page ?? Number(params.page ?? 1)) + 1 } : null;
