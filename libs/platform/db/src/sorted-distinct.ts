/**
 * The distinct values of a field (account ids, for instance) in ascending order, listed page by
 * page instead of with `distinct`, whose one reply holds every value and fails past MongoDB's 16 MB
 * (about 500,000 account ids). A page is one aggregation (`$match` on the values after the last
 * one listed, `$sort` and `$group` by the field, `$sort`, `$limit`) read through its cursor at
 * once, so no reply and no page in memory holds more than `pageSize` values, no cursor stays open
 * while the caller works on a page (a run of hours never meets the server's idle cursor timeout),
 * and a stopped run goes on after the last value it finished (`after`).
 */
import type { Collection, Document } from 'mongodb';

export interface SortedDistinctOptions {
  /** List only the values after this one (a stopped run's last). */
  after?: string;
  /** Values a page (one aggregation, one reply) holds at most. */
  pageSize?: number;
}

export const SORTED_DISTINCT = { pageSize: 5000 };

/** The string values of `field` among the documents matching `match`, ascending, each once. */
export async function* sortedDistinct(
  collection: Collection<Document>,
  field: string,
  match: Document = {},
  opts: SortedDistinctOptions = {},
): AsyncGenerator<string> {
  const pageSize = opts.pageSize ?? SORTED_DISTINCT.pageSize;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error(`sortedDistinct: pageSize must be a positive integer, not ${pageSize}`);
  let after = opts.after;
  for (;;) {
    const page = (await collection
      .aggregate(
        [
          // Strings only: the order (binary, as MongoDB compares strings) and `after` are those of strings.
          { $match: { ...match, [field]: after === undefined ? { $type: 'string' } : { $type: 'string', $gt: after } } },
          // Sorted by the field, then grouped by it: on MongoDB a DISTINCT_SCAN of an index led by
          // the field (one key per value, not one per document).
          { $sort: { [field]: 1 } },
          { $group: { _id: `$${field}` } },
          { $sort: { _id: 1 } },
          { $limit: pageSize },
        ],
        { allowDiskUse: true, batchSize: pageSize, maxTimeMS: 0 },
      )
      .toArray()) as Array<{ _id: string }>;
    for (const row of page) yield row._id;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!._id;
  }
}

/** The union of ascending lists of strings, ascending, each value once (the lists are read as they are consumed). */
export async function* mergeSorted(lists: Array<AsyncIterable<string>>): AsyncGenerator<string> {
  const its = lists.map((l) => l[Symbol.asyncIterator]());
  const heads = await Promise.all(its.map((it) => it.next()));
  let last: string | undefined;
  for (;;) {
    let min: string | undefined;
    for (const h of heads) if (!h.done && (min === undefined || h.value < min)) min = h.value;
    if (min === undefined) return;
    if (min !== last) yield min;
    last = min;
    for (let i = 0; i < heads.length; i++) if (!heads[i]!.done && heads[i]!.value === min) heads[i] = await its[i]!.next();
  }
}
