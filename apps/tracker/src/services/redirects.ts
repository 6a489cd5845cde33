/**
 * What a tracked link redirects to. Links never change after creation, so the (link, program)
 * pair is cached per process for CACHE_TTL_MS: a program's click-id parameter change applies
 * within a minute. Unknown codes are not cached (a new link works at once).
 */
import type { Repositories } from '@cw/db';

export interface RedirectTarget {
  linkId: string;
  publisherId: string;
  programId: number;
  campaignId: number;
  subid: string;
  landingUrl: string;
  clickIdParam: string;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 100_000;

export const CODE_PATTERN = /^[A-Za-z0-9]{1,64}$/;

export class RedirectResolver {
  private cache = new Map<string, { target: RedirectTarget; expires: number }>();

  constructor(private readonly repos: Pick<Repositories, 'links' | 'programs'>) {}

  async resolve(code: string, now = Date.now()): Promise<RedirectTarget | undefined> {
    if (!CODE_PATTERN.test(code)) return undefined;
    const hit = this.cache.get(code);
    if (hit && hit.expires > now) return hit.target;
    const link = await this.repos.links.byCode(code);
    if (!link) return undefined;
    const program = await this.repos.programs.byId(link.program_id, { click_id_param: 1 });
    const target: RedirectTarget = {
      linkId: String(link._id),
      publisherId: link.publisher_id,
      programId: link.program_id,
      campaignId: link.campaign_id,
      subid: link.subid ?? '',
      landingUrl: link.landing_url,
      clickIdParam: program?.click_id_param || 'cw_click_id',
    };
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(code, { target, expires: now + CACHE_TTL_MS });
    return target;
  }
}

/** The landing URL with the click id appended under the program's parameter name. */
export function destination(target: RedirectTarget, clickId: string): string {
  const url = new URL(target.landingUrl);
  url.searchParams.set(target.clickIdParam, clickId);
  return url.toString();
}
