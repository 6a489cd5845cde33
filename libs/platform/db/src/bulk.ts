/**
 * Duplicate-tolerant bulk inserts: an unordered insertMany where a document whose unique key is
 * already stored (11000, a racing writer or an earlier, partly failed attempt) is not an error.
 * Any other write error is thrown.
 */
import type { Collection, Document } from 'mongodb';

export interface BulkInsertResult {
  /** Indexes (in the given array) of the documents this call stored. */
  inserted: Set<number>;
  duplicates: number;
}

export async function insertManyTolerant(collection: Collection<Document>, docs: Document[]): Promise<BulkInsertResult> {
  if (!docs.length) return { inserted: new Set(), duplicates: 0 };
  try {
    await collection.insertMany(docs, { ordered: false });
    return { inserted: new Set(docs.map((_, i) => i)), duplicates: 0 };
  } catch (e) {
    const err = e as { code?: number; writeErrors?: Array<{ index: number; code: number }> | { index: number; code: number } };
    const writeErrors = Array.isArray(err.writeErrors) ? err.writeErrors : err.writeErrors ? [err.writeErrors] : [];
    if (!writeErrors.length && err.code !== 11000) throw e;
    if (writeErrors.some((w) => w.code !== 11000)) throw e;
    const failed = new Set(writeErrors.map((w) => w.index));
    return { inserted: new Set(docs.flatMap((_, i) => (failed.has(i) ? [] : [i]))), duplicates: failed.size };
  }
}
