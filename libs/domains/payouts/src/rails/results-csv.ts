/**
 * Reading a results CSV: the outcome of payouts paid outside a bank's pain.002 (PayPal, ACH and
 * the other rails), one row per payout under the header `payout_id,status,reason_code,reason_message`
 * (the reason columns may be left out). `status` is `paid`, `failed` or `pending`; a reason's
 * message is the file's own, else the ISO reason code's words. Read with csv-parse; a file that is
 * not this is a 400 `invalid_parameter` (param `file`) naming the line.
 */
import { parse } from 'csv-parse/sync';
import { invalidFile, MAX_FILE_BYTES } from './iso-xml';
import { plainText } from './rail-values';
import { reasonMessage, type PaymentResult, type PaymentStatus } from './status-reasons';

export const RESULTS_CSV_COLUMNS = ['payout_id', 'status', 'reason_code', 'reason_message'] as const;

const STATUSES: readonly PaymentStatus[] = ['paid', 'failed', 'pending'];

/** Every payout's outcome in the file, in its order. */
export function parseResultsCsv(text: string): PaymentResult[] {
  if (typeof text !== 'string' || !text.trim()) throw invalidFile('the results CSV is empty.');
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw invalidFile(`the results CSV is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`);
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, skip_empty_lines: true, trim: true, max_record_size: 64 * 1024 }) as string[][];
  } catch (err) {
    throw invalidFile(`the results CSV cannot be read: ${plainText((err as Error).message, 200)}`);
  }
  const header = rows[0]!.map((h) => h.toLowerCase());
  const column = (name: string) => header.indexOf(name);
  const unknown = header.filter((h) => !(RESULTS_CSV_COLUMNS as readonly string[]).includes(h));
  if (column('payout_id') < 0 || column('status') < 0 || unknown.length || new Set(header).size !== header.length) {
    throw invalidFile(`the results CSV's first line must be the header ${RESULTS_CSV_COLUMNS.join(',')} (reason_code and reason_message may be left out).`);
  }
  if (rows.length === 1) throw invalidFile('the results CSV has no rows.');

  const seen = new Set<string>();
  return rows.slice(1).map((row, i) => {
    const line = `line ${i + 2}`;
    const cell = (name: string) => (column(name) >= 0 ? (row[column(name)] ?? '') : '');
    const payoutId = cell('payout_id');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(payoutId)) throw invalidFile(`${line}: payout_id is not a payout id.`);
    if (seen.has(payoutId)) throw invalidFile(`${line}: ${payoutId} is listed twice.`);
    seen.add(payoutId);
    const status = cell('status').toLowerCase() as PaymentStatus;
    if (!STATUSES.includes(status)) throw invalidFile(`${line}: status must be paid, failed or pending.`);
    const code = plainText(cell('reason_code'), 35);
    if (code && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(code)) throw invalidFile(`${line}: reason_code is not a code.`);
    const message = plainText(cell('reason_message'), 300);
    if (status === 'paid' || (!code && !message)) return { endToEndId: payoutId, status };
    return { endToEndId: payoutId, status, reason: { code: code || 'NARR', message: message || reasonMessage(code) } };
  });
}
