/**
 * Streams rows as CSV or TSV (csv-stringify) into a Koa response: header line, RFC 4180 quoting,
 * backpressure through the pipe, cells a spreadsheet would run as formulas neutralised, and the
 * source closed when the client goes away before the end.
 */
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Context } from 'koa';

/**
 * A cell a spreadsheet would run as a formula gets a leading apostrophe. A plain negative decimal
 * (a correction's commission, `-5.00`) runs nothing and stays a number.
 */
export const neutralizeFormula = (v: string) => (/^[=+\-@\t\r]/.test(v) && !/^-[0-9]{1,30}(\.[0-9]{1,30})?$/.test(v) ? `'${v}` : v);

/** A record by column name, or the cells in column order. */
export type Row = Record<string, unknown> | readonly unknown[];

export interface DelimitedOptions {
  columns: readonly string[];
  /** `,` (CSV, default) or `\t` (TSV). */
  delimiter?: ',' | '\t';
  /** Sets Content-Disposition: attachment with this file name. */
  filename?: string;
  /** Called when the client leaves before the last row (close cursors here). */
  onAbort?: () => void;
  /** Called with a failure of the source after the response started. */
  onError?: (e: Error) => void;
}

export function sendDelimited(ctx: Context, rows: Iterable<Row> | AsyncIterable<Row>, opts: DelimitedOptions): void {
  const tsv = opts.delimiter === '\t';
  const out = stringify({
    header: true,
    columns: [...opts.columns],
    delimiter: opts.delimiter ?? ',',
    cast: { string: neutralizeFormula },
    record_delimiter: tsv ? '\n' : '\r\n',
  });
  const body = new PassThrough();
  const source = Readable.from(rows);
  source.on('error', (e) => {
    opts.onError?.(e);
    body.destroy(e);
  });
  source.pipe(out).pipe(body);
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) {
      source.destroy();
      opts.onAbort?.();
    }
  });
  if (opts.filename) ctx.set('Content-Disposition', `attachment; filename="${opts.filename}"`);
  ctx.type = tsv ? 'text/tab-separated-values; charset=utf-8' : 'text/csv; charset=utf-8';
  ctx.body = body;
}
