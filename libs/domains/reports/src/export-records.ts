/**
 * The CSV records of an export's database cursor, one document at a time. The merchant names the
 * rows show are read once per export (an account sells through few merchants; a name not yet seen
 * is read when its first row comes), so no batch of documents is held beside the driver's own
 * (`batchSize`), and the documents die young: held across an await in a batch of 1,000 they
 * outlived the young generation's collections and grew the old one (bench/README.md, issue 67).
 */
import type { ReportsDeps } from './deps';

export type CsvRecord = Array<string | null>;

/** Documents per getMore of an export's cursor: what the process holds of it at a time. */
export const EXPORT_BATCH = 250;

export async function* namedRecords<T extends { campaign_id?: number | null }>(
  deps: ReportsDeps,
  cursor: AsyncIterable<T>,
  record: (doc: T, merchantName: string | undefined) => CsvRecord,
): AsyncGenerator<CsvRecord> {
  const names = new Map<number, string | undefined>();
  for await (const doc of cursor) {
    const c = doc.campaign_id;
    if (c === undefined || c === null) {
      yield record(doc, undefined);
      continue;
    }
    if (!names.has(c)) names.set(c, (await deps.data.programs.merchantNames([c])).get(c));
    yield record(doc, names.get(c));
  }
}
