/**
 * The window of one page a repository's list reads (built by @cw/usecase's `pageWindow`): the
 * rows to skip, the order, and the narrowing of the list's filter to the rows after a cursor.
 */
export interface ListPage {
  skip: number;
  sort: Record<string, 1 | -1>;
  filter(base: Record<string, unknown>): Record<string, unknown>;
  /** The cursor's position (the last row's sort values), for lists that do not read rows in one query (clicks in buckets). */
  after?: ReadonlyArray<string | number | Date>;
}
