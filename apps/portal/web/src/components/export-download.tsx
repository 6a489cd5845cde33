/**
 * "Download CSV" for an export that may run for minutes (a large account's every conversion): the
 * link's address is the CSV itself (it works without script, "copy link" gives it), and a click
 * fetches it instead, counts its rows as they arrive ("Exporting… 12,345 rows" in a polite live
 * region) with a Cancel button, then saves it under the name the server gives. Rows are counted
 * exactly: a line break inside a quoted cell is not a row.
 */
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import { ApiError } from '../api/client';
import { useFormat } from '../lib/format';
import { csvRowCounter, fileNameOf } from './csv-rows';

type ExportState =
  { at: 'idle' } | { at: 'running'; rows: number } | { at: 'done'; rows: number } | { at: 'cancelled'; rows: number } | { at: 'failed'; message: string };

/** How often the row count on screen (and so in the live region) changes at most. */
const REDRAW_MS = 500;

async function failureOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: string; code?: string; request_id?: string };
    const e = new ApiError({ status: res.status, code: body.code ?? 'error', detail: body.detail ?? res.statusText, request_id: body.request_id });
    return e.request_id ? `${e.detail} (request ${e.request_id})` : e.detail;
  } catch {
    return `The export failed (HTTP ${res.status}).`;
  }
}

/** Saves `blob` as a download named `name` (an object URL clicked, then released). */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function ExportDownload({ href, fallbackName, label = 'Download CSV' }: { href: string; fallbackName: string; label?: string }) {
  const fmt = useFormat();
  const [state, setState] = useState<ExportState>({ at: 'idle' });
  const abort = useRef<AbortController | null>(null);
  const link = useRef<HTMLAnchorElement>(null);
  // Leaving the page (or changing the filters, which changes `href`) ends a running export.
  useEffect(() => () => abort.current?.abort(), [href]);

  const run = async () => {
    const controller = new AbortController();
    abort.current = controller;
    let rows = 0;
    setState({ at: 'running', rows });
    try {
      const res = await fetch(href, { credentials: 'same-origin', cache: 'no-store', signal: controller.signal });
      if (!res.ok || !res.body) {
        setState({ at: 'failed', message: await failureOf(res) });
        return;
      }
      const chunks: Uint8Array[] = [];
      const reader = res.body.getReader();
      const counter = csvRowCounter();
      let drawn = performance.now();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        rows = counter.add(value);
        if (performance.now() - drawn >= REDRAW_MS) {
          drawn = performance.now();
          setState({ at: 'running', rows });
        }
      }
      save(
        new Blob(chunks as BlobPart[], { type: res.headers.get('Content-Type') ?? 'text/csv' }),
        fileNameOf(res.headers.get('Content-Disposition'), fallbackName),
      );
      setState({ at: 'done', rows });
    } catch (e) {
      if (controller.signal.aborted) setState({ at: 'cancelled', rows });
      else setState({ at: 'failed', message: e instanceof Error && e.message ? `The export stopped: ${e.message}` : 'The export stopped.' });
    } finally {
      if (abort.current === controller) abort.current = null;
    }
  };

  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    // A modified click (new tab, save link as) keeps the browser's own handling.
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (state.at !== 'running') void run();
  };
  const cancel = () => {
    abort.current?.abort();
    link.current?.focus();
  };

  const rowsIn = (n: number) => `${fmt.number(n)} ${n === 1 ? 'row' : 'rows'}`;
  const message =
    state.at === 'running'
      ? `Exporting… ${rowsIn(state.rows)}`
      : state.at === 'done'
        ? `Exported ${rowsIn(state.rows)}.`
        : state.at === 'cancelled'
          ? `Export cancelled after ${rowsIn(state.rows)}.`
          : state.at === 'failed'
            ? state.message
            : '';
  return (
    <span className="export-download">
      <a ref={link} className="button button-secondary" href={href} download onClick={onClick} aria-busy={state.at === 'running' || undefined}>
        {label}
      </a>
      {state.at === 'running' && (
        <button type="button" className="button button-ghost" onClick={cancel}>
          Cancel export
        </button>
      )}
      <span className={`export-progress small${state.at === 'failed' ? ' text-danger' : ' muted'}`} role="status" aria-live="polite" aria-atomic="true">
        {message}
      </span>
    </span>
  );
}
