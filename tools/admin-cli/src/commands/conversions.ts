/** Conversions, the events feed, stats and the ledger: through the conversions lib (acts by its operator use cases, audited). */
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { readEventLog } from '@cw/events-feed';
import { buildStatsRollups, parseRebuildAfter, rebuildStats } from '@cw/stats';
import { bookPendingSales } from '@cw/ledger';
import { deliverLoggedEvents } from '@cw/postbacks';
import { operatorBackfillEvents, operatorChangeConversionStatus, operatorListConversions, operatorPruneEvents } from '@cw/conversions-operator';
import { ApiError } from '@cw/errors';
import { choice, int, mustPublisher, str, UsageError, type CommandSpec, type Options } from './shared';

export const CONVERSIONS_COMMANDS: Record<string, CommandSpec> = {
  'conversion:approve': conversionChange('approved', 'Approve pending conversions'),
  'conversion:decline': conversionChange('declined', 'Decline pending conversions (an approved one is reversed)'),
  'conversion:reverse': conversionChange('declined', 'Reverse approved conversions (they become declined)', 'approved'),
  'conversion:list': {
    summary: "List a publisher's or a merchant's conversions, newest first",
    options: {
      publisher: { type: 'string', doc: 'account id' },
      merchant: { type: 'string', doc: 'merchant id' },
      status: { type: 'string', doc: 'pending, approved or declined' },
      limit: { type: 'string', doc: 'at most this many (default 50)' },
    },
    run: async (deps, o) => {
      const publisher = str(o, 'publisher');
      const merchant = str(o, 'merchant') ? int(o, 'merchant') : undefined;
      if (!publisher && merchant === undefined) throw new UsageError('give --publisher or --merchant');
      return operatorListConversions(deps, deps.operator, {
        publisher,
        merchant,
        status: choice(o, 'status', ['pending', 'approved', 'declined'] as const),
        limit: int(o, 'limit'),
      });
    },
  },
  'events:tail': {
    summary: "A publisher's sale events, oldest first, from a cursor; --follow prints each new one as it happens (one JSON line each) until interrupted",
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      cursor: { type: 'string', doc: 'start after this cursor (default: the first event)' },
      limit: { type: 'string', doc: 'without --follow: at most this many (default 100, at most 500)' },
      follow: { type: 'boolean', doc: 'keep printing new events (one JSON line each, with its cursor) until Ctrl-C' },
    },
    run: async (deps, o) => {
      const publisher = str(o, 'publisher')!;
      await mustPublisher(deps, publisher);
      const read = (cursor: string | undefined, limit: number) =>
        readEventLog(deps, publisher, { cursor, limit }).catch((e: unknown) => {
          throw e instanceof ApiError && e.status < 500 ? new UsageError(e.detail) : e;
        });
      if (!o.follow) {
        const limit = int(o, 'limit') ?? 100;
        if (limit < 1 || limit > 500) throw new UsageError('--limit must be 1 to 500');
        const page = await read(str(o, 'cursor'), limit);
        return {
          events: page.events.map((e) => ({ ...(JSON.parse(e.body) as object), cursor: e.cursor })),
          next_cursor: page.next_cursor,
          has_more: page.has_more,
        };
      }
      let cursor = str(o, 'cursor');
      let stop = false;
      const interrupt = () => (stop = true);
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        while (!stop) {
          const page = await read(cursor, 500);
          for (const e of page.events) process.stdout.write(`${JSON.stringify({ ...(JSON.parse(e.body) as object), cursor: e.cursor })}\n`);
          cursor = page.next_cursor;
          if (!page.has_more) await new Promise((r) => setTimeout(r, 500));
        }
      } finally {
        process.off('SIGINT', interrupt);
        process.off('SIGTERM', interrupt);
      }
      // Where it stopped, for the person (standard error): standard output holds only event lines.
      process.stderr.write(`stopped; resume with --cursor ${cursor}\n`);
      return undefined;
    },
  },
  'stats:rebuild': {
    summary:
      'Recompute the stats read model (reports, summaries, getStats, payment status, earnings) from the raw conversions and clicks, month by month, a progress line per month (rows/s, s per million rows, where to resume); safe to repeat, resumable with --after',
    options: {
      publisher: { type: 'string', doc: 'one account id (default: every account with conversions or clicks)' },
      from: { type: 'string', doc: 'YYYY-MM-DD: rebuild from the UTC month of this day on (default: all history)' },
      after: {
        type: 'string',
        doc: 'ACCOUNT or ACCOUNT@YYYY-MM: go on after this account, or after this month of it (the "resume" a stopped run printed last)',
      },
    },
    run: async (deps, o, progress) => {
      const publisherId = str(o, 'publisher');
      if (publisherId !== undefined) await mustPublisher(deps, publisherId);
      const fromRaw = str(o, 'from');
      if (fromRaw !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(fromRaw) || Number.isNaN(Date.parse(`${fromRaw}T00:00:00Z`))))
        throw new UsageError(`--from must be a date YYYY-MM-DD, got "${fromRaw}"`);
      const from = fromRaw === undefined ? undefined : new Date(`${fromRaw}T00:00:00.000Z`);
      const afterRaw = str(o, 'after');
      const after = afterRaw === undefined ? undefined : parseRebuildAfter(afterRaw);
      if (afterRaw !== undefined && !after) throw new UsageError(`--after must be ACCOUNT or ACCOUNT@YYYY-MM, got "${afterRaw}"`);
      return rebuildStats(deps, {
        publisherId,
        from,
        after,
        // A line per month on standard error (not with --json): where it is, how fast, and where to go on from if stopped.
        onProgress: progress
          ? (p) =>
              process.stderr.write(
                `stats:rebuild ${p.publisher} ${p.month} (${p.done}/${p.total}): ${p.rows} rows, ${p.rows_per_s} rows/s, ${p.s_per_million_rows} s per million rows, ${p.cells_changed} cells changed; resume with --after ${p.resume}\n`,
              )
          : undefined,
      });
    },
  },
  'stats:rollups': {
    summary:
      "Build the stats roll-ups (the top lists' and by-sub-ID/program reports' day and month documents) from the read model's cells, month by month (progress bar); resumable: a rerun builds only what is missing",
    options: {
      publisher: { type: 'string', doc: 'one account id (default: every account with stats)' },
      from: { type: 'string', doc: 'YYYY-MM-DD: build from the UTC month of this day on (default: all history)' },
    },
    run: async (deps, o, progress) => {
      const publisherId = str(o, 'publisher');
      if (publisherId !== undefined) await mustPublisher(deps, publisherId);
      const fromRaw = str(o, 'from');
      if (fromRaw !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(fromRaw) || Number.isNaN(Date.parse(`${fromRaw}T00:00:00Z`))))
        throw new UsageError(`--from must be a date YYYY-MM-DD, got "${fromRaw}"`);
      const from = fromRaw === undefined ? undefined : new Date(`${fromRaw}T00:00:00.000Z`);
      return buildStatsRollups(deps, { publisherId, from, onProgress: progress ? (p) => progress(p.done, p.total) : undefined });
    },
  },
  'events:prune': {
    summary: 'Remove sale events logged more than N days ago from the events feed (cursors before them then answer 410)',
    options: { 'older-than-days': { type: 'string', required: true, doc: 'keep the last N days of events' } },
    run: async (deps, o) => {
      const days = int(o, 'older-than-days')!;
      // Every consumer of the log reads it first (the ledger books, postbacks queue their deliveries,
      // as the worker's passes would): an event a consumer has not read is never pruned.
      while ((await bookPendingSales(deps)) > 0);
      while ((await deliverLoggedEvents(deps)).accounts > 0);
      return operatorPruneEvents(deps, deps.operator, { before: new Date(Date.now() - days * 86_400_000) });
    },
  },
  'events:backfill': {
    summary: 'Put the sale events of conversions from before the events feed existed into it (safe to repeat: logged events are skipped)',
    options: {},
    run: (deps) => operatorBackfillEvents(deps, deps.operator),
  },
};

/** Conversion ids from --id, or from the first column of a CSV file (--file; a header line is skipped). */
function conversionIds(o: Options): string[] {
  const id = str(o, 'id');
  const file = str(o, 'file');
  if (!id === !file) throw new UsageError('give --id or --file');
  if (id) return [id];
  let text: string;
  try {
    text = readFileSync(file!, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const rows = parseCsv(text, { skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  return rows.map((r) => r[0]).filter((v) => v && /^cnv_/.test(v));
}

/**
 * A status change through the lifecycle (the same rules and one event per change), for one id or
 * for every id of a CSV file with a progress bar (networks approve thousands at month end).
 */
function conversionChange(to: 'approved' | 'declined', summary: string, onlyFrom?: 'approved'): CommandSpec {
  return {
    summary,
    options: { id: { type: 'string', doc: 'conversion id' }, file: { type: 'string', doc: 'CSV file whose first column holds conversion ids' } },
    run: async (deps, o, progress) => {
      const ids = conversionIds(o);
      const results: Array<{ id: string; status?: string; error?: string }> = [];
      for (const [i, id] of ids.entries()) {
        try {
          results.push({ id, status: (await operatorChangeConversionStatus(deps, deps.operator, { id, to, onlyFrom })).status });
        } catch (e) {
          if (!(e instanceof ApiError) || e.status >= 500) throw e;
          results.push({ id, error: e.detail });
        }
        progress?.(i + 1, ids.length);
      }
      if (str(o, 'id')) {
        if (results[0].error) throw new UsageError(results[0].error);
        return results[0];
      }
      return { changed: results.filter((r) => !r.error).length, failed: results.filter((r) => r.error).length, errors: results.filter((r) => r.error) };
    },
  };
}
