/**
 * The docs' table of caches, rendered from the namespaces' declarations (a test keeps the table in
 * docs/caches.md equal to it).
 */
import type { CacheSpec } from './namespace';

const number = (n: number) => n.toLocaleString('en-US');

function duration(ms: number): string {
  if (ms === Infinity) return 'no limit';
  if (ms === 0) return '0';
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

const HEAD = ['Namespace', 'Keeps', 'Bound (entries)', 'Fresh for', 'Then stale for', 'Also ends when'];

/** The table's cells: a header, then one row per namespace in the order given. */
export function cacheTableRows(specs: readonly CacheSpec[]): string[][] {
  const rows = specs.map((s) => [
    `\`${s.name}\``,
    cell(s.keeps),
    s.maxEntriesSetting ? `\`${s.maxEntriesSetting}\` (${number(s.maxEntries)})` : number(s.maxEntries),
    s.freshMsSetting ? `\`${s.freshMsSetting}\` (${duration(s.freshMs)})` : duration(s.freshMs),
    duration(s.staleMs ?? 0),
    cell(s.invalidation) + (s.admission === 'second-ask' ? ' Kept from the second ask of a key.' : ''),
  ]);
  return [HEAD, ...rows];
}

/** The table as markdown. */
export function renderCacheTable(specs: readonly CacheSpec[]): string {
  const [head, ...rows] = cacheTableRows(specs);
  return [head!, head!.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The cells of the first markdown table in `markdown` after `heading` (a line that starts with it), header row first. */
export function readMarkdownTable(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  if (start < 0) return [];
  const out: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('|')) {
      if (out.length) break;
      continue;
    }
    const cells = line
      .slice(1, line.trimEnd().length - 1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!cells.every((c) => /^:?-+:?$/.test(c))) out.push(cells);
  }
  return out;
}
