/**
 * Tracking links through the API. A LinkRequest names a program (program_id, or campaign_id when
 * the caller has exactly one approved program of that campaign; both must agree when both are
 * given), an optional sub-ID ([A-Za-z0-9._~-], 1 to 100) and an optional landing URL (http or
 * https, on the program's allowed domains; default: the program's landing page). The program
 * must be approved for the caller. One link per (publisher, program, landing URL, sub-ID): asking
 * again returns the same link. Optional `routes` (smart links, ./link-routes.ts): each rule's
 * landing URL passes the same rule as landing_url (400 naming `routes[i].landing_url`); sent, they
 * replace the link's rules, created or existing; absent, the link keeps its own.
 */
import { ApiError } from '@cw/errors';
import { WRITERS, type Policy, type Principal } from '@cw/auth';
import type { ProgramRow } from '@cw/programs';
import { LINK_LIST_ORDER, type LinkRow } from './data/links.data';
import type { LinksDeps } from './deps';
import { CAMPAIGN_ID_PATTERN, merchantMismatch } from '@cw/programs';
import { useCase, CURSOR_PAGING, pageSizeInput, pageWindow, type InputOf } from '@cw/usecase';
import { bodyValidator } from '@cw/validation';
import { ensureLinks, trackedUrl, type EnsuredLink, type LinkSpec } from './tracked-links';
import { normalRoutes, ROUTES_INPUT, type LinkRoute } from './link-routes';
import { HEALTH_STATES, healthOf } from './link-health';

export const SUBID_PATTERN = '^[A-Za-z0-9._~-]{1,100}$';

export const LINK_REQUEST_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    program_id: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'The program; required unless campaign_id identifies one approved program.' },
    campaign_id: {
      oneOf: [
        { type: 'integer', minimum: 1, maximum: 2147483647 },
        { type: 'string', pattern: CAMPAIGN_ID_PATTERN },
      ],
      description: "The program's campaign (merchant) id, as integer or string.",
    },
    subid: { type: 'string', pattern: SUBID_PATTERN, description: 'Your sub-ID: 1 to 100 of A-Z a-z 0-9 . _ ~ -' },
    landing_url: {
      type: 'string',
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
      description: "http(s) URL on the program's allowed domains; default: the program's landing page.",
    },
    routes: ROUTES_INPUT,
    check_landing: {
      type: 'boolean',
      description:
        'true: the link health check also asks the landing URL (HEAD, then GET; at most once a second per host) and shows `unreachable` when it does not answer; false turns it off. Absent: the link keeps its own (default off).',
    },
    fallback: {
      type: 'boolean',
      description:
        "false: when this product link's product is out of stock or no longer served, never send the click to the same GTIN at another program (the program's landing page instead); true turns it on again. Absent: the link keeps its own (default true; the account's `link_fallback` setting can turn it off for every link).",
    },
  },
} as const;

/** Items are validated one by one (each reports its own error). */
export const LINK_BATCH_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['links'],
  properties: { links: { type: 'array', minItems: 1, maxItems: 50, items: {} } },
} as const;

export const LIST_LINKS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    subid: { type: 'string', pattern: SUBID_PATTERN },
    campaign_id: { type: 'string', pattern: CAMPAIGN_ID_PATTERN, description: 'Campaign (merchant) id.' },
    health: { type: 'string', enum: [...HEALTH_STATES], description: 'Only links in this health state (ok: also links never found unhealthy).' },
    ...CURSOR_PAGING,
    page_size: pageSizeInput(1000),
  },
} as const;

export type LinkRequest = InputOf<typeof LINK_REQUEST_INPUT>;

const READ_LINKS_POLICY: Policy = { budget: 'links', scope: 'links:write' };
const WRITE_LINKS_POLICY: Policy = {
  budget: 'links',
  refuseKinds: ['read_only'],
  refuseDetail: 'Demo accounts and read-only keys cannot create links.',
  refuseDemoAccounts: true,
  roles: WRITERS,
  scope: 'links:write',
};

const validateItem = bodyValidator<LinkRequest>(LINK_REQUEST_INPUT);
const PROGRAM_FIELDS = { merchant_id: 1, status: 1, allowed_domains: 1, default_landing_url: 1 } as const;

/** Resolves programs and the caller's approvals once per request (a batch shares them). */
class Resolver {
  private programs = new Map<number, ProgramRow | null>();
  private approved?: Set<number>;
  constructor(
    private readonly deps: LinksDeps,
    private readonly publisherId: string,
  ) {}

  private async approvedIds(): Promise<Set<number>> {
    this.approved ??= new Set(await this.deps.data.programs.approvedIds(this.publisherId));
    return this.approved;
  }

  private async program(id: number): Promise<ProgramRow | null> {
    if (!this.programs.has(id)) this.programs.set(id, await this.deps.data.programs.byId(id, PROGRAM_FIELDS));
    return this.programs.get(id)!;
  }

  async resolve(req: LinkRequest): Promise<LinkSpec & { routes?: LinkRoute[]; fallback?: boolean; checkLanding?: boolean }> {
    const approved = await this.approvedIds();
    let program: ProgramRow | null;
    if (req.program_id !== undefined) {
      program = await this.program(req.program_id);
      if (!program || program.status !== 'active')
        throw new ApiError({ code: 'not_found', detail: `Program ${req.program_id} does not exist or is not active.` });
      if (req.campaign_id !== undefined && String(req.campaign_id) !== String(program.merchant_id)) throw merchantMismatch();
    } else if (req.campaign_id !== undefined) {
      // The wire's campaign is the program's merchant.
      const merchant = Number(req.campaign_id);
      const candidates = await this.deps.data.programs.activeOfMerchant(merchant, PROGRAM_FIELDS);
      const [firstCandidate] = candidates;
      if (!firstCandidate) throw new ApiError({ code: 'not_found', detail: `Campaign ${merchant} has no active program.` });
      const mine = candidates.filter((p) => approved.has(p._id));
      if (mine.length > 1) {
        throw new ApiError({
          code: 'invalid_parameter',
          detail: `Campaign ${merchant} has several programs approved for you: send program_id (${mine.map((p) => p._id).join(', ')}).`,
          errors: [{ param: 'program_id', detail: 'is required: the campaign has several approved programs' }],
        });
      }
      program = mine[0] ?? firstCandidate;
    } else {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: 'Invalid request: send program_id or campaign_id.',
        errors: [{ param: 'program_id', detail: 'is required unless campaign_id is given' }],
      });
    }
    if (!approved.has(program._id))
      throw new ApiError({
        code: 'program_not_approved',
        detail: `Program ${program._id} is not approved for this account. Apply with POST /programs/apply/.`,
      });
    return {
      publisherId: this.publisherId,
      programId: program._id,
      merchantId: program.merchant_id,
      landingUrl: landingUrlFor(program, req.landing_url),
      subid: req.subid ?? '',
      ...(req.routes ? { routes: normalRoutes(req.routes as LinkRoute[], (raw, param) => landingUrlFor(program, raw, param)) } : {}),
      ...(req.fallback !== undefined ? { fallback: req.fallback } : {}),
      ...(req.check_landing !== undefined ? { checkLanding: req.check_landing } : {}),
    };
  }
}

export function hostAllowed(host: string, domains: string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => {
    const dom = d.toLowerCase().replace(/^\*\./, '');
    return h === dom || h.endsWith(`.${dom}`);
  });
}

/** The landing URL a link (or one of its routes, named by `param`) may take: on the program's domains. */
function landingUrlFor(program: ProgramRow, raw: string | undefined, param = 'landing_url'): string {
  if (raw === undefined) return program.default_landing_url;
  const bad = (detail: string) => new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('must be an absolute http or https URL');
  if (url.username || url.password) throw bad('must not carry credentials');
  const domains = program.allowed_domains.length ? program.allowed_domains : [new URL(program.default_landing_url).hostname];
  if (!hostAllowed(url.hostname, domains)) throw bad(`must be on the program's domains (${domains.join(', ')})`);
  url.hash = '';
  return url.toString();
}

export function linkView(trackingUrl: string, l: LinkRow) {
  return {
    id: l._id,
    url: trackedUrl(trackingUrl, l._id),
    deeplink_id: l._id,
    program_id: l.program_id,
    campaign_id: l.campaign_id,
    subid: l.subid || null,
    landing_url: l.landing_url,
    routes: (l.routes ?? []).map((r) => ({
      ...(r.countries?.length ? { countries: [...r.countries] } : {}),
      ...(r.devices?.length ? { devices: [...r.devices] } : {}),
      landing_url: r.landing_url,
    })),
    health: healthOf(l),
    fallback: l.fallback !== false,
    check_landing: l.check_landing === true,
    created_at: l.created_at,
  };
}

export type LinkView = ReturnType<typeof linkView>;

/** Creates (or finds) one link: `created` is false when the same link existed. */
export const createLink = useCase(
  WRITE_LINKS_POLICY,
  async function createLink(
    deps: LinksDeps,
    principal: Principal,
    input: LinkRequest,
  ): Promise<{
    created: boolean;
    link: LinkView;
  }> {
    const spec = await new Resolver(deps, principal.publisher._id).resolve(input);
    const [ensured] = (await ensureLinks(deps.data.links, deps.config.secretKey, [spec], { source: 'api', listed: true })) as [EnsuredLink];
    if (spec.routes) await deps.data.links.setRoutes(new Map([[ensured.code, spec.routes]]), new Date());
    if (spec.fallback !== undefined) await deps.data.links.setFallback(new Map([[ensured.code, spec.fallback]]), new Date());
    if (spec.checkLanding !== undefined) await deps.data.links.setCheckLanding(new Map([[ensured.code, spec.checkLanding]]), new Date());
    const link = (await deps.data.links.byCodes([ensured.code])).get(ensured.code)!;
    return { created: ensured.created, link: linkView(deps.config.trackingUrl, link) };
  },
  LINK_REQUEST_INPUT,
);

/** 1 to 50 links: one entry per item, in order: created, existing, or error (code, detail). */
export const createLinkBatch = useCase(
  WRITE_LINKS_POLICY,
  async function createLinkBatch(deps: LinksDeps, principal: Principal, input: InputOf<typeof LINK_BATCH_INPUT>) {
    const resolver = new Resolver(deps, principal.publisher._id);
    const outcomes: Array<{ spec?: LinkSpec & { routes?: LinkRoute[]; fallback?: boolean; checkLanding?: boolean }; error?: ApiError }> = [];
    for (const item of input.links) {
      try {
        outcomes.push({ spec: await resolver.resolve(validateItem(item)) });
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        outcomes.push({ error: e });
      }
    }
    const specs = outcomes.filter((o) => o.spec).map((o) => o.spec!);
    const ensured = specs.length ? await ensureLinks(deps.data.links, deps.config.secretKey, specs, { source: 'api', listed: true }) : [];
    // Items sending routes set them (two items on one link: the later one's rules stay).
    const routes = new Map<string, LinkRoute[]>();
    const fallback = new Map<string, boolean>();
    const checkLanding = new Map<string, boolean>();
    specs.forEach((s, i) => {
      if (s.routes) routes.set(ensured[i]!.code, s.routes);
      if (s.fallback !== undefined) fallback.set(ensured[i]!.code, s.fallback);
      if (s.checkLanding !== undefined) checkLanding.set(ensured[i]!.code, s.checkLanding);
    });
    await deps.data.links.setRoutes(routes, new Date());
    await deps.data.links.setFallback(fallback, new Date());
    await deps.data.links.setCheckLanding(checkLanding, new Date());
    const links = await deps.data.links.byCodes(ensured.map((e) => e.code));
    // Two items asking for one link: the first reports created, the second existing.
    const reported = new Set<string>();
    let k = 0;
    const results = outcomes.map((o, index) => {
      if (o.error) {
        return {
          index,
          status: 'error' as const,
          error: { code: o.error.code, detail: o.error.detail, ...(o.error.errors ? { errors: o.error.errors } : {}) },
        };
      }
      const e = ensured[k++]!; // one per request without an error, in order
      const created = e.created && !reported.has(e.code);
      reported.add(e.code);
      return { index, status: created ? ('created' as const) : ('existing' as const), link: linkView(deps.config.trackingUrl, links.get(e.code)!) };
    });
    return {
      results,
      created: results.filter((r) => r.status === 'created').length,
      existing: results.filter((r) => r.status === 'existing').length,
      errors: results.filter((r) => r.status === 'error').length,
    };
  },
  LINK_BATCH_INPUT,
);

/** The caller's links created through the links API, newest first. */
export const listLinks = useCase(
  READ_LINKS_POLICY,
  async function listLinks(deps: LinksDeps, principal: Principal, input: InputOf<typeof LIST_LINKS_INPUT>) {
    const w = pageWindow({ list: 'links', account: principal.publisher._id, secret: deps.config.secretKey }, LINK_LIST_ORDER, input);
    const rows = await deps.data.links.listed(
      {
        publisherId: principal.publisher._id,
        subid: input.subid,
        merchantId: input.campaign_id === undefined ? undefined : Number(input.campaign_id),
        health: input.health,
      },
      w,
      input.page_size + 1,
    );
    return w.envelope(rows, (page) => page.map((r) => linkView(deps.config.trackingUrl, r)));
  },
  LIST_LINKS_INPUT,
);
