/**
 * Link health (issue 66, DESIGN.md "Smart links", docs/decisions/0064-link-health.md): whether a
 * link's target can still earn. A pass goes over every link in `_id` order, a batch at a time, and
 * judges each from the programs and the catalog:
 * - the program gone or closed: `program_ended`; paused: `program_paused`;
 * - the publisher's assignment not approved (any more): `not_approved`;
 * - a product link (it records its product): the program no longer serving the product's market:
 *   `program_ended`; the product gone, removed, stale or out of stock: `out_of_stock`;
 * - else, where the landing check is on (`landing`), a landing URL that does not answer: `unreachable`;
 * - else `ok`.
 * A link stores `health: {state, since}` only once it is found other than ok; `since` is when
 * the pass first found the state, kept while it lasts. A link never found unhealthy shows `ok`
 * since its creation. Only links whose state (or clicks lost) changed are written, in one
 * bulk write per batch, so a pass over a million healthy links writes nothing and holds one batch.
 */
import type { Principal, Policy } from '@cw/auth';
import type { ProgramRow, ProgramsData } from '@cw/programs';
import { useCase, type InputOf } from '@cw/usecase';
import type { HealthLinkRow, HealthUpdate, LinkRow, LinksData } from './data/links.data';
import type { LinksDeps } from './deps';
import { trackedUrl } from './tracked-links';

export const HEALTH_STATES = ['ok', 'out_of_stock', 'program_paused', 'program_ended', 'not_approved', 'unreachable'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];
export const UNHEALTHY_STATES: readonly HealthState[] = HEALTH_STATES.filter((s) => s !== 'ok');

/** A link's health as the API shows it. */
export const HEALTH_SCHEMA = {
  type: 'object',
  required: ['state', 'since'],
  properties: {
    state: {
      type: 'string',
      enum: [...HEALTH_STATES],
      description:
        "ok, or why the link's target cannot earn: out_of_stock, program_paused, program_ended (or no longer in the product's market), not_approved, unreachable.",
    },
    since: { type: 'string', format: 'date-time', description: 'When the state began (found by the health pass); a link never found unhealthy: its creation.' },
  },
} as const;

/** The catalog's freshness window (@cw/catalog FRESHNESS_HOURS): a product not seen within it is not offered. */
export const PRODUCT_FRESH_MS = 48 * 3_600_000;

/** What the pass asks of the catalog (its data handle, `CatalogData.productStates`). */
export interface ProductStates {
  productStates(ids: string[], now: Date, freshSince: Date): Promise<Map<string, { offered: boolean; country: string }>>;
}

/** Human clicks of each link of one account from `since` (per link) to now: the stats read model's per-link view, wired by the worker. */
export type ClicksSince = (publisherId: string, links: Array<{ id: string; since: Date }>, now: Date) => Promise<Map<string, number>>;

/**
 * Whether a landing URL answers (./link-health-landing.ts `landingProbe`), asked only for links it
 * wants (`check_landing`) whose target is otherwise ok; undefined: not checked this pass (the
 * host's share of the pass is spent), the link keeps its state.
 */
export interface LandingProbe {
  wants(link: HealthLinkRow): boolean;
  reachable(url: string): Promise<boolean | undefined>;
}

export interface HealthDeps {
  data: { links: LinksData; programs: ProgramsData; catalog: ProductStates };
}

export interface HealthPassOptions {
  now?: Date;
  /** Links read and judged at a time (default 1000). */
  batch?: number;
  clicksSince?: ClicksSince;
  landing?: LandingProbe;
  /** After each batch: how far the pass got (a lease renewal, progress). */
  afterBatch?: (r: HealthPassResult) => Promise<void> | void;
}

export interface HealthPassResult {
  /** Links judged. */
  links: number;
  /** Links whose state changed (written). */
  changed: number;
  /** Links found not ok. */
  unhealthy: number;
  /** Accounts with a link whose clicks lost grew in this pass (the `links_unhealthy` mail's accounts). */
  losing: Set<string>;
}

const PROGRAM_FIELDS = { status: 1, countries: 1 } as const;
/** Accounts whose approvals the pass keeps at once (its memory bound; emptied when full). */
const APPROVALS_MAX = 20_000;

/** The state of one link's target. */
export function targetState(
  link: Pick<HealthLinkRow, 'program_id' | 'product'>,
  program: Pick<ProgramRow, 'status' | 'countries'> | undefined,
  approved: Set<number> | undefined,
  product: { offered: boolean } | undefined,
): HealthState {
  if (!program || program.status === 'closed') return 'program_ended';
  if (program.status === 'paused') return 'program_paused';
  if (!approved?.has(link.program_id)) return 'not_approved';
  if (link.product) {
    if (program.countries?.length && !program.countries.includes(link.product.market)) return 'program_ended';
    if (!product?.offered) return 'out_of_stock';
  }
  return 'ok';
}

/** A link's health as stored, or `ok` since its creation. */
export function healthOf(link: Pick<LinkRow, 'health' | 'created_at'>): { state: HealthState; since: Date } {
  return link.health ? { state: link.health.state as HealthState, since: link.health.since } : { state: 'ok', since: link.created_at };
}

/**
 * One pass over every link: each judged, the changed ones written (`health: {state, since: now}`),
 * the clicks lost of the links still unhealthy recounted (`clicksSince`) and written where they
 * changed. Memory: one batch, the programs seen, at most APPROVALS_MAX accounts' approvals and
 * the ids of the accounts holding a link not ok (never a set of links).
 */
export async function checkLinkHealth(deps: HealthDeps, opts: HealthPassOptions = {}): Promise<HealthPassResult> {
  const now = opts.now ?? new Date();
  const batch = opts.batch ?? 1000;
  const freshSince = new Date(now.getTime() - PRODUCT_FRESH_MS);
  const programs = new Map<number, ProgramRow | undefined>();
  let approvals = new Map<string, Set<number>>();
  const out: HealthPassResult = { links: 0, changed: 0, unhealthy: 0, losing: new Set() };
  // Accounts holding a link not ok (for the clicks lost; at most one entry per account).
  const unhealthyAccounts = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const links = await deps.data.links.healthBatch(after, batch);
    if (!links.length) break;
    after = links.at(-1)!._id;
    const newPrograms = [...new Set(links.map((l) => l.program_id))].filter((id) => !programs.has(id));
    if (newPrograms.length) {
      const found = await deps.data.programs.byIds(newPrograms, PROGRAM_FIELDS);
      for (const id of newPrograms) programs.set(id, found.get(id));
    }
    const newPublishers = [...new Set(links.map((l) => l.publisher_id))].filter((p) => !approvals.has(p));
    if (newPublishers.length) {
      if (approvals.size + newPublishers.length > APPROVALS_MAX) approvals = new Map();
      for (const [p, ids] of await deps.data.programs.approvedOfPublishers(newPublishers)) approvals.set(p, ids);
    }
    const productIds = links.flatMap((l) => (l.product ? [l.product.id] : []));
    const products = productIds.length ? await deps.data.catalog.productStates(productIds, now, freshSince) : new Map<string, { offered: boolean }>();

    const updates: HealthUpdate[] = [];
    for (const link of links) {
      let state = targetState(link, programs.get(link.program_id), approvals.get(link.publisher_id), link.product ? products.get(link.product.id) : undefined);
      const stored = link.health?.state ?? 'ok';
      if (state === 'ok' && opts.landing?.wants(link)) {
        const reachable = await opts.landing.reachable(link.landing_url);
        if (reachable === false || (reachable === undefined && stored === 'unreachable')) state = 'unreachable';
      }
      if (state !== 'ok') {
        out.unhealthy++;
        unhealthyAccounts.add(link.publisher_id);
      }
      if (state !== stored) updates.push({ code: link._id, health: { state, since: now } });
    }
    if (updates.length) await deps.data.links.setHealth(updates);
    out.changed += updates.length;
    out.links += links.length;
    await opts.afterBatch?.(out);
    if (links.length < batch) break;
  }
  if (opts.clicksSince) await recountClicksLost(deps.data.links, opts.clicksSince, unhealthyAccounts, now, batch, out);
  return out;
}

/**
 * Clicks lost, after the states: per account with links not ok, its links of each unhealthy state
 * a page at a time (the index `{publisher_id, health.state, _id}`), one `clicksSince` read per page;
 * links whose state began in this pass (since = now) lost nothing yet. Written where they changed.
 */
async function recountClicksLost(links: LinksData, clicksSince: ClicksSince, accounts: Set<string>, now: Date, batch: number, out: HealthPassResult) {
  for (const publisherId of accounts)
    for (const state of UNHEALTHY_STATES) {
      let after: string | undefined;
      for (;;) {
        const page = await links.inHealthState(publisherId, state, after, batch);
        if (!page.length) break;
        after = page.at(-1)!._id;
        const older = page.filter((l) => l.health!.since.getTime() < now.getTime());
        const counts = older.length
          ? await clicksSince(
              publisherId,
              older.map((l) => ({ id: l._id, since: l.health!.since })),
              now,
            )
          : new Map<string, number>();
        const updates: HealthUpdate[] = [];
        for (const l of older) {
          const lost = counts.get(l._id) ?? 0;
          const before = l.health!.clicks_lost ?? 0;
          if (lost === before) continue;
          updates.push({ code: l._id, clicksLost: lost });
          if (lost > before) out.losing.add(publisherId);
        }
        if (updates.length) await links.setHealth(updates);
        if (page.length < batch) break;
      }
    }
}

export const ATTENTION_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
} as const;

/** A link that lost clicks to its health, as the dashboard and the mail list it. */
export const ATTENTION_SCHEMA = {
  type: 'object',
  required: ['links', 'unhealthy'],
  properties: {
    unhealthy: { type: 'integer', description: 'How many of the account’s links are not ok (listed or not).' },
    links: {
      type: 'array',
      description: 'Links not ok that lost clicks, most clicks lost first.',
      items: {
        type: 'object',
        required: ['id', 'url', 'landing_url', 'program_id', 'state', 'since', 'clicks_lost'],
        properties: {
          id: { type: 'string' },
          url: { type: 'string' },
          landing_url: { type: 'string' },
          subid: { type: ['string', 'null'] },
          program_id: { type: 'integer' },
          state: HEALTH_SCHEMA.properties.state,
          since: HEALTH_SCHEMA.properties.since,
          clicks_lost: { type: 'integer', description: 'Human clicks counted since `since` (from its quarter hour), as of the last health pass.' },
        },
      },
    },
  },
} as const;

/** The account's links that lost clicks while not ok, most first, and how many links are not ok. */
export async function linksLosingClicks(links: LinksData, trackingUrl: string, publisherId: string, limit: number) {
  const [rows, unhealthy] = await Promise.all([links.losingClicks(publisherId, limit), links.unhealthyCount(publisherId)]);
  return {
    unhealthy,
    links: rows.map((l) => ({
      id: l._id,
      url: trackedUrl(trackingUrl, l._id),
      landing_url: l.landing_url,
      subid: l.subid || null,
      program_id: l.program_id,
      state: l.health!.state as HealthState,
      since: l.health!.since,
      clicks_lost: l.health!.clicks_lost ?? 0,
    })),
  };
}

const READ_LINKS_POLICY: Policy = { budget: 'links', scope: 'links:write' };

/** The dashboard's links needing attention. */
export const linksNeedingAttention = useCase(
  READ_LINKS_POLICY,
  async function linksNeedingAttention(deps: LinksDeps, principal: Principal, input: InputOf<typeof ATTENTION_INPUT>) {
    return linksLosingClicks(deps.data.links, deps.config.trackingUrl, principal.publisher._id, input.limit ?? 20);
  },
  ATTENTION_INPUT,
);
