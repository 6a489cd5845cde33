/**
 * The link builder's strings as requests, apart from its forms: one link's request, the batch box's
 * lines (each a request or the problem the API would answer, in words), and the list's "last N days".
 */
import type { LinkRequest } from '../api/catalog';
import { validateLinkRequest } from '../generated/validators.js';
import { checkForm } from '../lib/validation';

export const SUBID_HINT = 'Up to 100 of A–Z a–z 0–9 . _ ~ - (no spaces): tells your placements apart in reports.';
export const LABELS = { program_id: 'Program', landing_url: 'Landing URL', subid: 'Sub-ID', routes: 'Routing', fallback: 'When the product sells out' };

/** One link's request from the form's strings (empty members left out). */
export function requestOf(program: string, landing: string, subid: string): LinkRequest {
  return {
    program_id: Number(program),
    ...(landing.trim() ? { landing_url: landing.trim() } : {}),
    ...(subid.trim() ? { subid: subid.trim() } : {}),
  };
}

export interface Line {
  /** 1-based, as the person counts the box's lines. */
  line: number;
  text: string;
  input?: LinkRequest;
  problem?: string;
}

/** "landing URL", "sub-ID", or both (comma, tab or spaces between), for `program`. */
export function parseLines(text: string, program: string): Line[] {
  const out: Line[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const tokens = raw.split(/[\s,;]+/).filter(Boolean);
    if (!tokens.length) return;
    const urls = tokens.filter((t) => /^[a-z][a-z0-9+.-]*:\/\//i.test(t));
    const others = tokens.filter((t) => !urls.includes(t));
    const line: Line = { line: i + 1, text: raw.trim() };
    if (urls.length > 1) line.problem = 'Has two landing URLs: one per line.';
    else if (others.length > 1) line.problem = `Has ${others.length} sub-IDs (“${others.join('”, “').slice(0, 80)}”): one per line, without spaces.`;
    else {
      line.input = requestOf(program, urls[0] ?? '', others[0] ?? '');
      const errors = checkForm(validateLinkRequest, line.input);
      if (errors)
        line.problem = Object.entries(errors.fields)
          .map(([f, m]) => `${LABELS[f as keyof typeof LABELS] ?? f}: ${f === 'subid' ? SUBID_HINT : m}`)
          .concat(errors.form)
          .join(' ');
    }
    out.push(line);
  });
  return out;
}

/** Today in `zone` as YYYY-MM-DD, and `days - 1` days before it (a range of `days` days). */
export function lastDays(days: number, zone: string, now = new Date()): { date_from: string; date_to: string } {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  const t = Date.parse(`${today}T00:00:00Z`);
  return { date_from: new Date(t - (days - 1) * 86_400_000).toISOString().slice(0, 10), date_to: today };
}
