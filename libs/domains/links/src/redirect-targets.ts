/**
 * What a tracked link redirects to, as the tracker reads it on every click. Links never change
 * after creation, so a code's target (the link and its program's click-id parameter) is kept in
 * the `links.redirectTargets` namespace for a minute: a program's parameter change applies within
 * it, and so does a change of the link's routes (smart links: each compiled with its own
 * destination). Unknown codes are not kept (a new link works at once). A product link's target
 * also says whether its product is dead (then with the GTIN fallback's plan, link-fallback.ts),
 * checked when the target is read: a product that sells out is seen within the minute.
 * docs/decisions/0045-one-cache-abstraction.md, 0062-smart-link-routes.md, 0063-gtin-fallback.md.
 */
import type { CacheNamespace, CacheSpec } from '@cw/cache';
import type { ProgramsData } from '@cw/programs';
import type { LinksData } from './data/links.data';
import { compileRoutes, type CompiledRoute } from './link-routes';
import type { LinkRow } from './data/links.data';
import type { LinkProduct } from './tracked-links';

/** A route as the redirect follows it: its match and its destination around the click id. */
export interface RedirectRoute extends CompiledRoute {
  around: [string, string];
}

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
  /** The link's routes, in order; absent when it has none (its clicks pay no lookup). */
  routes?: RedirectRoute[];
  /** A dead product link's fallback plan; absent for every live link (its clicks pay nothing more). */
  fallback?: FallbackPlan;
  /** The program's landing page around the click id, when the plan may send clicks there. */
  landingAround?: [string, string];
}

/** Why a product link is dead. */
export type DeadReason = 'out_of_stock' | 'not_served' | 'program_paused' | 'program_ended' | 'not_approved';

/** Where a dead product link's click goes in one visitor market. */
export type FallbackAnswer =
  /**
   * The publisher's link at the program that answered: its code, and its target once the tracker
   * has read it (kept with the answer, so a click reads no cache: it lives as long as the plan).
   */
  | { kind: 'other'; code: string; programId: number; target?: RedirectTarget }
  /** The link's own program's landing page. */
  | { kind: 'landing' }
  /** The link's own landing URL, as without a fallback (the fallback is off and no landing page takes clicks). */
  | { kind: 'own' }
  /** Nowhere: the tracker's page saying so. */
  | { kind: 'page' };

/** A dead product link as its cached target carries it. */
export interface FallbackPlan {
  reason: DeadReason;
  /** The link's program. */
  from: number;
  product: LinkProduct;
  /** Fallback to another program allowed (the link's and the account's switches). */
  enabled: boolean;
  /** The program's landing page, while it takes the publisher's clicks (active, approved). */
  landingUrl?: string;
  /** Answers per visitor market, as found (a promise while being found). */
  answers: Map<string, FallbackAnswer | Promise<FallbackAnswer>>;
}

/** What the resolver asks of the GTIN fallback (link-fallback.ts's LinkFallback). */
export interface FallbackPlanner {
  planFor(
    link: Pick<LinkRow, 'publisher_id' | 'program_id' | 'product' | 'fallback'>,
    program: { status?: string | null; default_landing_url?: string | null } | null,
    now?: Date,
  ): Promise<FallbackPlan | undefined>;
}

export const REDIRECT_TARGETS_CACHE: CacheSpec = {
  name: 'links.redirectTargets',
  keeps:
    "A link code's redirect target (landing URL, routes, attribution, the program's click-id parameter; a product link's dead state and its GTIN fallback answers per visitor market), for the tracker",
  maxEntries: 100_000,
  freshMs: 60_000,
  invalidation:
    "Nothing else (a link's identity never changes; a change of its routes, fallback switch, product stock or program status, or of a program's click-id parameter, applies once the entry is no longer fresh). Unknown codes are not kept.",
};

export const CODE_PATTERN = /^[A-Za-z0-9]{1,64}$/;

export class RedirectResolver {
  constructor(
    private readonly data: { links: LinksData; programs: ProgramsData },
    private readonly targets: CacheNamespace<string, RedirectTarget>,
    /** The GTIN fallback (product links); absent: product links are followed as any link. */
    private readonly fallback?: FallbackPlanner,
  ) {}

  /** The kept target of a code, without any read (undefined: not kept or no longer fresh). */
  cached(code: string, now?: number): RedirectTarget | undefined {
    return this.targets.get(code, now === undefined ? undefined : { now });
  }

  async resolve(code: string, now?: number): Promise<RedirectTarget | undefined> {
    if (!CODE_PATTERN.test(code)) return undefined;
    const hit = this.cached(code, now);
    if (hit) return hit;
    const link = await this.data.links.byCode(code);
    if (!link) return undefined;
    const program = await this.data.programs.byId(link.program_id, link.product && this.fallback ? PRODUCT_LINK_PROGRAM : CLICK_ID_ONLY);
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
    if (link.routes?.length) {
      const compiled = compileRoutes(link.routes);
      target.routes = link.routes.map((r, i) => ({ ...compiled[i]!, around: around(r.landing_url, clickIdParam) }));
    }
    if (link.product && this.fallback) {
      const plan = await this.fallback.planFor(link, program, now === undefined ? undefined : new Date(now));
      if (plan) {
        target.fallback = plan;
        if (plan.landingUrl) target.landingAround = around(plan.landingUrl, clickIdParam);
      }
    }
    this.targets.set(code, target, now === undefined ? undefined : { now });
    return target;
  }
}

const CLICK_ID_ONLY = { click_id_param: 1 } as const;
const PRODUCT_LINK_PROGRAM = { click_id_param: 1, status: 1, default_landing_url: 1 } as const;

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

/** `destination`'s route for the program's landing page (a dead product link's fallback). */
export const LANDING = -2;

/** The landing URL (of the route at `route`, else the link's own) with the click id appended under the program's parameter name. */
export function destination(target: RedirectTarget, clickId: string, route = -1): string {
  const at = route === LANDING ? target.landingAround! : route >= 0 && target.routes ? target.routes[route]!.around : target.around;
  return at[0] + clickId + at[1];
}
