/**
 * The GTIN fallback of a product link (docs/decisions/0063-gtin-fallback.md). When the tracker
 * reads a product link's target (once a minute per code, redirect-targets.ts), it checks the
 * link's product and program: a link whose product is in stock and served, at an active program
 * the publisher is approved for, carries no plan and its clicks cost nothing more. A dead one
 * carries a `FallbackPlan`; the first click from each visitor market within the target's minute
 * finds the answer (`answerFor`): the same GTIN in stock at another program the publisher is
 * approved for in that market, the cheapest (decimal compare), as the publisher's own product link
 * there (made like a product page makes it, so the click is that program's); else the program's
 * landing page while the program still takes the publisher's clicks; else the tracker's page that
 * says so. The answers are kept on the plan, so later clicks from that market read them at once.
 */
import { compareDecimals, decimal128String, type Decimal128Like } from '@cw/money';
import type { ProgramsData } from '@cw/programs';
import type { LinksData, LinkRow } from './data/links.data';
import type { DeadReason, FallbackAnswer, FallbackPlan } from './redirect-targets';

export type { DeadReason, FallbackAnswer, FallbackPlan };
import { ensureLinks } from './tracked-links';

/** How long a catalog row stays served after it was last seen (the catalog's FRESHNESS_HOURS). */
const FRESH_MS = 48 * 3_600_000;

/** What the fallback reads of the catalog (CatalogData has these; links does not depend on the catalog lib). */
export interface FallbackCatalog {
  productState(id: string, q: { freshSince: Date; now: Date }): Promise<{ availability: string; served: boolean } | null>;
  inStockOffers(q: {
    gtin14: string;
    country: string;
    programIds: number[];
    freshSince: Date;
    now: Date;
  }): Promise<Array<{ _id: string; program_id: number; merchant_id: number; source_url: string; price: Decimal128Like | string }>>;
}

/** What the fallback reads of the account: its `link_fallback` setting. */
export interface FallbackAccounts {
  publisherById(id: string): Promise<{ link_fallback?: boolean | null } | null>;
}

export class LinkFallback {
  constructor(
    private readonly data: { links: LinksData; programs: ProgramsData; catalog: FallbackCatalog; auth: FallbackAccounts },
    private readonly key: Buffer,
  ) {}

  /**
   * The plan of a link (undefined: not a product link, or alive). `program` is the link's program as
   * the resolver read it. Costs a healthy product link two reads (its product, its membership).
   */
  async planFor(
    link: Pick<LinkRow, 'publisher_id' | 'program_id' | 'product' | 'fallback'>,
    program: { status?: string | null; default_landing_url?: string | null } | null,
    now = new Date(),
  ): Promise<FallbackPlan | undefined> {
    const product = link.product;
    if (!product) return undefined;
    const [state, memberships] = await Promise.all([
      this.data.catalog.productState(product.id, { freshSince: new Date(now.getTime() - FRESH_MS), now }),
      this.data.programs.membershipsOf(link.publisher_id, [link.program_id]),
    ]);
    const approved = memberships.get(link.program_id)?.status === 'approved';
    const status = program?.status ?? 'closed';
    const reason: DeadReason | undefined =
      status === 'closed'
        ? 'program_ended'
        : status !== 'active'
          ? 'program_paused'
          : !approved
            ? 'not_approved'
            : !state || !state.served
              ? 'not_served'
              : state.availability === 'out_of_stock'
                ? 'out_of_stock'
                : undefined;
    if (!reason) return undefined;
    const account = link.fallback === false ? null : await this.data.auth.publisherById(link.publisher_id);
    const plan: FallbackPlan = {
      reason,
      from: link.program_id,
      product: { id: product.id, gtin: product.gtin, market: product.market },
      enabled: link.fallback !== false && account?.link_fallback !== false,
      answers: new Map(),
    };
    if (status === 'active' && approved && program?.default_landing_url) plan.landingUrl = program.default_landing_url;
    return plan;
  }

  /** The answer kept for a market, if found already. */
  static ready(plan: FallbackPlan, market: string): FallbackAnswer | undefined {
    const a = plan.answers.get(market);
    return a === undefined || a instanceof Promise ? undefined : a;
  }

  /** The answer for a market: kept, or found once (concurrent first clicks share the search). */
  answerFor(plan: FallbackPlan, link: { publisherId: string; subid: string }, market: string): Promise<FallbackAnswer> {
    const kept = plan.answers.get(market);
    if (kept !== undefined) return Promise.resolve(kept);
    const finding = this.find(plan, link, market).then(
      (a) => {
        plan.answers.set(market, a);
        return a;
      },
      (err: unknown) => {
        plan.answers.delete(market);
        throw err;
      },
    );
    plan.answers.set(market, finding);
    return finding;
  }

  private async find(plan: FallbackPlan, link: { publisherId: string; subid: string }, market: string, now = new Date()): Promise<FallbackAnswer> {
    const stay: FallbackAnswer = plan.landingUrl ? { kind: 'landing' } : plan.enabled ? { kind: 'page' } : { kind: 'own' };
    if (!plan.enabled) return stay;
    const programIds = await this.data.programs.activeApprovedIds(link.publisherId);
    if (!programIds.length) return stay;
    const offers = (
      await this.data.catalog.inStockOffers({
        gtin14: plan.product.gtin.padStart(14, '0'),
        country: market,
        programIds,
        freshSince: new Date(now.getTime() - FRESH_MS),
        now,
      })
    ).filter((o) => o._id !== plan.product.id);
    if (!offers.length) return stay;
    // The cheapest, by exact decimal comparison; ties by product id (one answer for everyone).
    const priced = offers.map((o) => ({ o, price: typeof o.price === 'string' ? o.price : decimal128String(o.price) }));
    priced.sort((a, b) => compareDecimals(a.price, b.price) || (a.o._id < b.o._id ? -1 : a.o._id > b.o._id ? 1 : 0));
    const best = priced[0]!.o;
    const [ensured] = await ensureLinks(
      this.data.links,
      this.key,
      [
        {
          publisherId: link.publisherId,
          programId: best.program_id,
          merchantId: best.merchant_id,
          landingUrl: best.source_url,
          subid: link.subid,
          product: { id: best._id, gtin: plan.product.gtin, market },
        },
      ],
      { source: 'product' },
    );
    return { kind: 'other', code: ensured!.code, programId: best.program_id };
  }
}
