/**
 * What a tracked link redirects to. Links never change after creation, so the (link, program)
 * pair is cached per process for CACHE_TTL_MS: a program's click-id parameter change applies
 * within a minute. Unknown codes are not cached (a new link works at once).
 */
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';

export interface RedirectTarget {
  linkId: string;
  publisherId: string;
  programId: number;
  merchantId: number;
  subid: string;
  landingUrl: string;
  clickIdParam: string;
  /** The destination around the click id (so each click costs a concatenation, not a URL parse). */
  around: [string, string];
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 100_000;

export const CODE_PATTERN = /^[A-Za-z0-9]{1,64}$/;

export class RedirectResolver {
  private cache = new Map<string, { target: RedirectTarget; expires: number }>();

  constructor(private readonly data: { links: LinksData; programs: ProgramsData }) {}

  /** The cached target of a code, without any read (undefined: not cached or expired). */
  cached(code: string, now = Date.now()): RedirectTarget | undefined {
    const hit = this.cache.get(code);
    return hit && hit.expires > now ? hit.target : undefined;
  }

  async resolve(code: string, now = Date.now()): Promise<RedirectTarget | undefined> {
    if (!CODE_PATTERN.test(code)) return undefined;
    const hit = this.cached(code, now);
    if (hit) return hit;
    const link = await this.data.links.byCode(code);
    if (!link) return undefined;
    const program = await this.data.programs.byId(link.program_id, { click_id_param: 1 });
    const clickIdParam = program?.click_id_param || 'cw_click_id';
    const target: RedirectTarget = {
      linkId: String(link._id),
      publisherId: link.publisher_id,
      programId: link.program_id,
      merchantId: link.campaign_id,
      subid: link.subid ?? '',
      landingUrl: link.landing_url,
      clickIdParam,
      around: around(link.landing_url, clickIdParam),
    };
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(code, { target, expires: now + CACHE_TTL_MS });
    return target;
  }
}

const MARK = 'cwclickid0000mark';

/**
 * The landing URL with the click id set under the program's parameter (URLSearchParams.set: an
 * existing value is replaced), split where the id goes. Click ids are base64url, which the query
 * serializer leaves as is, so concatenating gives exactly what set(param, id) would.
 */
function around(landingUrl: string, param: string): [string, string] {
  const url = new URL(landingUrl);
  url.searchParams.set(param, MARK);
  const s = url.toString();
  const at = s.lastIndexOf(MARK);
  return [s.slice(0, at), s.slice(at + MARK.length)];
}

/** The landing URL with the click id appended under the program's parameter name. */
export function destination(target: RedirectTarget, clickId: string): string {
  return target.around[0] + clickId + target.around[1];
}

/** Koa's ctx.accepts('html'): an Accept header naming text/html, text/*, or a wildcard, or none at all. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept === undefined || accept === '' || /text\/html|text\/\*|\*\/\*/.test(accept);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/**
 * The 302's headers and body (as Koa's ctx.redirect words them: the location escaped for a reader
 * of HTML), the one definition both the node route and the Koa route answer with.
 */
export function redirectAnswer(location: string, accept: string | undefined): { headers: Record<string, string>; body: string } {
  const html = acceptsHtml(accept);
  return {
    headers: { 'Cache-Control': 'no-store', Location: location, 'Content-Type': html ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8' },
    body: `Redirecting to ${html ? escapeHtml(location) : location}.`,
  };
}
