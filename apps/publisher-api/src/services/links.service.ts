/**
 * Tracking links through the API. A LinkRequest names a program (program_id, or campaign_id when
 * the caller has exactly one approved program of that campaign; both must agree when both are
 * given), an optional sub-ID ([A-Za-z0-9._~-], 1 to 100) and an optional landing URL (http or
 * https, on the program's allowed domains; default: the program's landing page). The program
 * must be approved for the caller. One link per (publisher, program, landing URL, sub-ID): asking
 * again returns the same link (200 instead of 201).
 */
import { ApiError } from '@cw/errors';
import type { Principal } from '@cw/auth';
import type { PlatformConfig } from '@cw/config';
import type { Models } from '@cw/db';
import { bodyValidator } from '@cw/http';
import { ensureLinks, trackedUrl, type LinkSpec } from '@cw/links';
import { envelope, skipFor } from './paging';
import { campaignMismatch } from './programs.service';

export const SUBID_PATTERN = '^[A-Za-z0-9._~-]{1,100}$';
/** A campaign (merchant) id sent as a string. */
export const CAMPAIGN_ID_PATTERN = '^[1-9][0-9]{0,9}$';

export const LINK_REQUEST_SCHEMA = {
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
    landing_url: { type: 'string', maxLength: 2048, description: "http(s) URL on the program's allowed domains; default: the program's landing page." },
  },
} as const;

export type LinkRequest = { program_id?: number; campaign_id?: number | string; subid?: string; landing_url?: string };

const validateItem = bodyValidator<LinkRequest>(LINK_REQUEST_SCHEMA as unknown as Record<string, unknown>);

interface ProgramInfo {
  _id: number;
  merchant_id: number;
  status: string;
  allowed_domains: string[];
  default_landing_url: string;
}

/** Resolves programs and the caller's approvals once per request (a batch shares them). */
class Resolver {
  private programs = new Map<number, ProgramInfo | null>();
  private approved?: Set<number>;
  constructor(
    private readonly models: Models,
    private readonly publisherId: string,
  ) {}

  private async approvedIds(): Promise<Set<number>> {
    this.approved ??= new Set((await this.models.Membership.find({ publisher_id: this.publisherId, status: 'approved' }, { program_id: 1 }).lean()).map((m) => m.program_id));
    return this.approved;
  }

  private async program(id: number): Promise<ProgramInfo | null> {
    if (!this.programs.has(id)) this.programs.set(id, await this.models.Program.findById(id, { merchant_id: 1, status: 1, allowed_domains: 1, default_landing_url: 1 }).lean<ProgramInfo>());
    return this.programs.get(id)!;
  }

  async resolve(req: LinkRequest): Promise<LinkSpec> {
    const approved = await this.approvedIds();
    let program: ProgramInfo | null;
    if (req.program_id !== undefined) {
      program = await this.program(req.program_id);
      if (!program || program.status !== 'active') throw new ApiError({ code: 'not_found', detail: `Program ${req.program_id} does not exist or is not active.` });
      if (req.campaign_id !== undefined && String(req.campaign_id) !== String(program.merchant_id)) throw campaignMismatch();
    } else if (req.campaign_id !== undefined) {
      const campaign = Number(req.campaign_id);
      const candidates = await this.models.Program.find({ merchant_id: campaign, status: 'active' }, { merchant_id: 1, status: 1, allowed_domains: 1, default_landing_url: 1 }).lean<ProgramInfo[]>();
      if (!candidates.length) throw new ApiError({ code: 'not_found', detail: `Campaign ${campaign} has no active program.` });
      const mine = candidates.filter((p) => approved.has(p._id));
      if (mine.length > 1) {
        throw new ApiError({
          code: 'invalid_parameter',
          detail: `Campaign ${campaign} has several programs approved for you: send program_id (${mine.map((p) => p._id).join(', ')}).`,
          errors: [{ param: 'program_id', detail: 'is required: the campaign has several approved programs' }],
        });
      }
      program = mine[0] ?? candidates[0];
    } else {
      throw new ApiError({ code: 'invalid_parameter', detail: "Invalid request: send program_id or campaign_id.", errors: [{ param: 'program_id', detail: 'is required unless campaign_id is given' }] });
    }
    if (!approved.has(program._id)) throw new ApiError({ code: 'program_not_approved', detail: `Program ${program._id} is not approved for this account. Apply with POST /programs/apply/.` });
    return {
      publisherId: this.publisherId,
      programId: program._id,
      campaignId: program.merchant_id,
      landingUrl: landingUrlFor(program, req.landing_url),
      subid: req.subid ?? '',
    };
  }
}

function hostAllowed(host: string, domains: string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => {
    const dom = d.toLowerCase().replace(/^\*\./, '');
    return h === dom || h.endsWith(`.${dom}`);
  });
}

function landingUrlFor(program: ProgramInfo, raw: string | undefined): string {
  if (raw === undefined) return program.default_landing_url;
  const bad = (detail: string) => new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter 'landing_url': ${detail}.`, errors: [{ param: 'landing_url', detail }] });
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

interface LinkRow {
  _id: string;
  program_id: number;
  campaign_id: number;
  subid?: string | null;
  landing_url: string;
  created_at: Date;
}

export function linkView(config: PlatformConfig, l: LinkRow) {
  return {
    id: l._id,
    url: trackedUrl(config.trackingUrl, l._id),
    deeplink_id: l._id,
    program_id: l.program_id,
    campaign_id: l.campaign_id,
    subid: l.subid || null,
    landing_url: l.landing_url,
    created_at: l.created_at,
  };
}

async function loadLinks(models: Models, codes: string[]): Promise<Map<string, LinkRow>> {
  const rows = await models.Link.find({ _id: { $in: codes } }).lean<LinkRow[]>();
  return new Map(rows.map((r) => [r._id, r]));
}

/** POST /links/: 201 with the link when created, 200 with the same link when it existed. */
export async function createLink(models: Models, config: PlatformConfig, principal: Principal, req: LinkRequest) {
  const spec = await new Resolver(models, principal.publisher._id).resolve(req);
  const [ensured] = await ensureLinks(models, config.secretKey, [spec], { source: 'api', listed: true });
  const link = (await loadLinks(models, [ensured.code])).get(ensured.code)!;
  return { status: ensured.created ? 201 : 200, body: linkView(config, link) };
}

/** POST /links/batch/: one entry per item, in order: created, existing, or error (code, detail). */
export async function createLinkBatch(models: Models, config: PlatformConfig, principal: Principal, items: unknown[]) {
  const resolver = new Resolver(models, principal.publisher._id);
  const outcomes: Array<{ spec?: LinkSpec; error?: ApiError }> = [];
  for (const item of items) {
    try {
      outcomes.push({ spec: await resolver.resolve(validateItem(item)) });
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      outcomes.push({ error: e });
    }
  }
  const specs = outcomes.filter((o) => o.spec).map((o) => o.spec!);
  const ensured = specs.length ? await ensureLinks(models, config.secretKey, specs, { source: 'api', listed: true }) : [];
  const links = await loadLinks(models, ensured.map((e) => e.code));
  // Two items asking for one link: the first reports created, the second existing.
  const reported = new Set<string>();
  let k = 0;
  const results = outcomes.map((o, index) => {
    if (o.error) {
      return { index, status: 'error' as const, error: { code: o.error.code, detail: o.error.detail, ...(o.error.errors ? { errors: o.error.errors } : {}) } };
    }
    const e = ensured[k++];
    const created = e.created && !reported.has(e.code);
    reported.add(e.code);
    return { index, status: created ? ('created' as const) : ('existing' as const), link: linkView(config, links.get(e.code)!) };
  });
  return {
    results,
    created: results.filter((r) => r.status === 'created').length,
    existing: results.filter((r) => r.status === 'existing').length,
    errors: results.filter((r) => r.status === 'error').length,
  };
}

/** GET /links/: the caller's links created through the links API, newest first. */
export async function listLinks(models: Models, config: PlatformConfig, principal: Principal, q: { subid?: string; campaign_id?: string; page: number; page_size: number }) {
  const filter: Record<string, unknown> = { publisher_id: principal.publisher._id, listed: true };
  if (q.subid !== undefined) filter.subid = q.subid;
  if (q.campaign_id !== undefined) filter.campaign_id = Number(q.campaign_id);
  const rows = await models.Link.find(filter).sort({ created_at: -1, _id: 1 }).skip(skipFor(q.page, q.page_size)).limit(q.page_size + 1).lean<LinkRow[]>();
  return envelope(rows.map((r) => linkView(config, r)), q.page, q.page_size);
}
