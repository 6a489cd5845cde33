/**
 * Instant monetization: a creator with no account gets provisional tracked links at once (or its
 * social post with merchant URLs rewritten to them), reads its status and edits its profile with
 * the access secret, and claims payouts later. The application owns a publisher of status
 * `provisional`: its links are real links (the tracker records their clicks, merchants' sales on
 * them count) and approval turns that publisher into an account that keeps all of it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { find as findUrls } from 'linkifyjs';
import { generateSecret, hashesEqual, hashSecret } from '@cw/auth';
import type { ProgramRow } from '@cw/programs';
import type { ApplicationStatus, MonetizeApplicationDoc } from './data/monetize-application.schema';
import { ApiError } from '@cw/errors';
import { ensureLinks, hostAllowed, trackedUrl, type LinkSpec } from '@cw/links';
import { addDecimals, moneyIn, parseDecimal } from '@cw/money';
import { readFacts } from '@cw/stats';
import { programView } from '@cw/programs';
import { pageOf, skipFor, type InputOf } from '@cw/usecase';
import { publicUrlProblem } from '@cw/validation';
import type { ACCESS_INPUT, CLAIM_INPUT, INSTANT_LINKS_INPUT, INSTANT_PROGRAMS_INPUT, PROFILE_PATCH_INPUT, SOCIAL_POST_INPUT } from './monetize.schemas';
import { own, type MonetizeDeps } from './deps';

const DAY_MS = 86_400_000;
/** Programs a link request without program_ids gets. */
const DEFAULT_PROGRAMS = 20;

export type ApplicationRow = MonetizeApplicationDoc & { _id: string };

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

function publicUrl(param: string, raw: string): string {
  const problem = publicUrlProblem(raw);
  if (problem) throw invalid(param, problem);
  return new URL(raw).toString();
}

const country = (c: string | undefined) => (c === 'UK' ? 'GB' : c);

/** Active, joinable programs; filtered by country, channel and topic when given. */

function instantProgramView(p: ProgramRow, merchantName: string | undefined) {
  const { relationship: _r, joinable: _j, auto_approve: _a, ...terms } = programView(p, merchantName, 'available');
  return { ...terms, channels: p.allowed_channels.length ? p.allowed_channels : ['coupon', 'content', 'social'] };
}

/** GET /programs/: programs open to instant links, with their terms as publishers see them. */
export async function listInstantPrograms(deps: MonetizeDeps, input: InputOf<typeof INSTANT_PROGRAMS_INPUT>) {
  if (input.publisher_url !== undefined) publicUrl('publisher_url', input.publisher_url);
  const rows = await deps.data.programs.openToInstantLinks(
    { country: country(input.country), channel: input.channel, topic: input.topic },
    { skip: skipFor(input.page, input.page_size), limit: input.page_size + 1 },
  );
  const names = await deps.data.programs.merchantNames(rows.map((r) => r.merchant_id));
  return pageOf(
    rows.map((r) => instantProgramView(r, names.get(r.merchant_id))),
    input,
  );
}

interface Caller {
  /** The client address (only its HMAC is kept). */
  address: string;
  now?: Date;
}

function claimOf(app: Pick<ApplicationRow, '_id' | 'claim_deadline'>) {
  return {
    how: `Add claim_email, display_name and country with PATCH /api/v1/monetize/profile/${app._id}/?access_secret=<your access secret>. The network then reviews the claim and turns the application into a publisher account that keeps its links, clicks and earnings; payouts wait for that approval.`,
    deadline: app.claim_deadline,
  };
}

/** Refuses a new application when this address opened its daily cap in the last 24 hours. */
async function checkDailyCap(deps: MonetizeDeps, addressHash: string, now: Date): Promise<void> {
  const cap = deps.config.monetizeApplicationsPerDay;
  const since = new Date(now.getTime() - DAY_MS);
  const recent = await own(deps)
    .MonetizeApplication.find({ address_hash: addressHash, created_at: { $gt: since } }, { created_at: 1 })
    .sort({ created_at: 1 })
    .limit(cap)
    .lean();
  const [oldest] = recent;
  if (!oldest || recent.length < cap) return;
  const retry = Math.max(1, Math.ceil((oldest.created_at.getTime() + DAY_MS - now.getTime()) / 1000));
  throw new ApiError({
    code: 'rate_limited',
    detail: `This address has opened ${cap} instant-monetization applications in the last 24 hours. Retry after ${retry} seconds.`,
    headers: { 'Retry-After': String(retry) },
  });
}

interface Opening {
  source: 'links' | 'social_post';
  publisherUrl?: string;
  placementDescription?: string;
  channel?: string;
  claimEmail?: string;
  programs: Array<{ program: ProgramRow; landingUrl: string }>;
}

/** Creates the provisional publisher, its approved assignments, its links and the application. */
async function openApplication(deps: MonetizeDeps, caller: Caller, o: Opening) {
  const now = caller.now ?? new Date();
  const addressHash = createHmac('sha256', deps.config.secretKey).update(`monetize:${caller.address}`).digest('hex').slice(0, 32);
  await checkDailyCap(deps, addressHash, now);
  const publisherId = `pub_mon_${randomBytes(8).toString('hex')}`;
  const secret = generateSecret('mon');
  await deps.data.auth.createPublishers([
    {
      _id: publisherId,
      name: o.publisherUrl ? new URL(o.publisherUrl).hostname : 'Instant creator',
      website: o.publisherUrl,
      status: 'provisional',
      is_demo: false,
      feed_access: false,
      markets: [],
      channels: o.channel ? [o.channel] : [],
      created_at: now,
      updated_at: now,
    },
  ]);
  const programIds = [...new Set(o.programs.map((p) => p.program._id))];
  await deps.data.programs.saveAssignments(
    programIds.map((id) => ({ publisher_id: publisherId, program_id: id, status: 'approved' as const, applied_at: now })),
    now,
  );
  const specs: LinkSpec[] = o.programs.map((p) => ({
    publisherId,
    programId: p.program._id,
    merchantId: p.program.merchant_id,
    landingUrl: p.landingUrl,
    subid: '',
  }));
  const ensured = await ensureLinks(deps.data.links, deps.config.secretKey, specs, { source: 'monetize', listed: true });
  const app = (
    await own(deps).MonetizeApplication.create({
      _id: `app_${randomBytes(12).toString('base64url')}`,
      secret_hash: hashSecret(secret),
      publisher_id: publisherId,
      status: o.claimEmail ? 'claimed' : 'provisional',
      source: o.source,
      publisher_url: o.publisherUrl,
      placement_description: o.placementDescription,
      channel: o.channel,
      address_hash: addressHash,
      profile: { claim_email: o.claimEmail ?? null, website: o.publisherUrl ?? null, channels: o.channel ? [o.channel] : [] },
      claim_deadline: new Date(now.getTime() + deps.config.monetizeClaimDays * DAY_MS),
      created_at: now,
      updated_at: now,
    })
  ).toObject() as ApplicationRow;
  return {
    application: {
      application_id: app._id,
      access_secret: secret,
      status: app.status,
      email_required: false,
      payout_claim_required: true,
      links: o.programs.map((p, i) => ({
        program_id: p.program._id,
        url: trackedUrl(deps.config.trackingUrl, ensured[i]!.code), // one link per program, in order
        landing_url: p.landingUrl,
        provisional: true,
      })),
      claim: claimOf(app),
    },
  };
}

/** POST /links/: provisional links to the programs' landing pages. */
export async function requestInstantLinks(deps: MonetizeDeps, caller: Caller, input: InputOf<typeof INSTANT_LINKS_INPUT>) {
  const publisherUrl = publicUrl('publisher_url', input.publisher_url);
  const rows = await deps.data.programs.openToInstantLinks(
    { ids: input.program_ids },
    { limit: input.program_ids ? input.program_ids.length : DEFAULT_PROGRAMS },
  );
  if (input.program_ids) {
    const open = new Set(rows.map((r) => r._id));
    const i = input.program_ids.findIndex((id) => !open.has(id));
    if (i >= 0) throw invalid(`program_ids[${i}]`, `program ${input.program_ids[i]} is not open to instant links (see GET /api/v1/monetize/programs/)`);
  }
  if (!rows.length) throw new ApiError({ code: 'service_unavailable', detail: 'No program is open to instant links right now. Retry later.' });
  const byId = new Map(rows.map((r) => [r._id, r]));
  const order = input.program_ids ?? rows.map((r) => r._id);
  const { application } = await openApplication(deps, caller, {
    source: 'links',
    publisherUrl,
    placementDescription: input.placement_description,
    programs: order.map((id) => ({ program: byId.get(id)!, landingUrl: byId.get(id)!.default_landing_url })),
  });
  return application;
}

/**
 * POST /social-post/: URLs found in the text (linkifyjs) on the allowed domains of a program open
 * to instant links for the channel are replaced by provisional links; other text is left as it
 * was, character for character.
 */
export async function rewriteSocialPost(deps: MonetizeDeps, caller: Caller, input: InputOf<typeof SOCIAL_POST_INPUT>) {
  const found = findUrls(input.post_text, 'url');
  const programs = found.length ? await deps.data.programs.openToInstantLinks({ channel: input.channel }) : [];
  const matches: Array<{ start: number; end: number; original: string; program: ProgramRow; landingUrl: string }> = [];
  for (const m of found) {
    let url: URL;
    try {
      url = new URL(m.href);
    } catch {
      continue;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) continue;
    const program = programs.find((p) => hostAllowed(url.hostname, p.allowed_domains.length ? p.allowed_domains : [new URL(p.default_landing_url).hostname]));
    if (!program) continue;
    url.hash = '';
    matches.push({ start: m.start, end: m.end, original: m.value, program, landingUrl: url.toString() });
  }
  if (!matches.length) {
    throw new ApiError({
      code: 'no_merchant_urls',
      detail: `No URL in post_text points to a merchant open to instant links for the ${input.channel} channel (see GET /api/v1/monetize/programs/).`,
      errors: [{ param: 'post_text', detail: 'has no merchant URL' }],
    });
  }
  const { application } = await openApplication(deps, caller, {
    source: 'social_post',
    channel: input.channel,
    claimEmail: input.claim_email,
    programs: matches,
  });
  let text = '';
  let at = 0;
  matches.forEach((m, i) => {
    text += input.post_text.slice(at, m.start) + application.links[i]!.url; // one link per match, in order
    at = m.end;
  });
  text += input.post_text.slice(at);
  return {
    ...application,
    post_text: text,
    links: application.links.map((l, i) => ({ ...l, original_url: matches[i]!.original })),
  };
}

const notFound = () => new ApiError({ code: 'not_found', detail: 'No application with this id and access secret.' });

/** The application, when the secret is its secret (compared in constant time); else 404. */
async function authorizedApplication(deps: MonetizeDeps, id: string, secret: string | undefined): Promise<ApplicationRow> {
  if (!secret || !/^app_[A-Za-z0-9_-]{8,40}$/.test(id)) throw notFound();
  const app = await own(deps).MonetizeApplication.findById(id).lean<ApplicationRow>();
  const presented = hashSecret(secret);
  if (!app || !hashesEqual(app.secret_hash, presented)) throw notFound();
  return app;
}

/** GET /requests/{id}/: status, links, clicks and pending earnings. */
export async function applicationStatus(deps: MonetizeDeps, id: string, input: InputOf<typeof ACCESS_INPUT>) {
  const app = await authorizedApplication(deps, id, input.access_secret);
  const links = await deps.data.links.linksOfPublisher(app.publisher_id);
  // Clicks and unpaid earnings from the stats read model (bots apart; pending and approved, not paid): read only.
  const facts = await readFacts(deps, { publisherId: app.publisher_id });
  let clicks = 0;
  const byCurrency = new Map<string, { count: number; amounts: string[] }>();
  for (const f of facts) {
    clicks += f.clicks;
    const c = f.conversion;
    if (!c || c.paid || (c.status !== 'pending' && c.status !== 'approved')) continue;
    const e = byCurrency.get(c.currency) ?? { count: 0, amounts: [] };
    e.count += c.n;
    e.amounts.push(c.commission);
    byCurrency.set(c.currency, e);
  }
  const earnings = [...byCurrency]
    .filter(([, e]) => e.count !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, e]) => ({ _id: currency, count: e.count, amount: addDecimals(e.amounts.map((v) => parseDecimal(v))) }));
  return {
    application_id: app._id,
    status: app.status,
    created_at: app.created_at,
    links: links.map((l) => ({
      program_id: l.program_id,
      url: trackedUrl(deps.config.trackingUrl, String(l._id)),
      landing_url: l.landing_url,
      provisional: app.status !== 'approved',
    })),
    clicks,
    conversions: earnings.reduce((n, e) => n + e.count, 0),
    pending_earnings: earnings.map((e) => ({ currency: e._id, amount: moneyIn(e.amount, e._id) })),
    payout_held: app.status !== 'approved',
    claim: claimOf(app),
  };
}

function profileView(app: ApplicationRow) {
  return {
    application_id: app._id,
    status: app.status,
    display_name: app.profile?.display_name ?? null,
    website: app.profile?.website ?? null,
    channels: app.profile?.channels ?? [],
    country: app.profile?.country ?? null,
    claim_email: app.profile?.claim_email ?? null,
  };
}

/** GET /profile/{id}/. */
export async function readProfile(deps: MonetizeDeps, id: string, input: InputOf<typeof ACCESS_INPUT>) {
  return profileView(await authorizedApplication(deps, id, input.access_secret));
}

/**
 * PATCH /profile/{id}/: a claim e-mail makes the application `claimed`; with display_name and
 * country too it is complete and goes `under_review`. Decided applications cannot change (409).
 */
export async function updateProfile(
  deps: MonetizeDeps,
  id: string,
  input: InputOf<typeof ACCESS_INPUT>,
  patch: InputOf<typeof PROFILE_PATCH_INPUT>,
  now = new Date(),
) {
  const app = await authorizedApplication(deps, id, input.access_secret);
  if (app.status === 'approved' || app.status === 'rejected')
    throw new ApiError({ code: 'conflict', detail: `The application is ${app.status}; its profile can no longer change.` });
  const profile = { ...profileView(app), ...patch };
  if (patch.website !== undefined) profile.website = publicUrl('website', patch.website);
  if (patch.country !== undefined) profile.country = country(patch.country)!;
  const status: ApplicationStatus = !profile.claim_email ? 'provisional' : profile.display_name && profile.country ? 'under_review' : 'claimed';
  const updated = await own(deps)
    .MonetizeApplication.findOneAndUpdate(
      { _id: app._id, status: app.status },
      {
        $set: {
          status,
          updated_at: now,
          profile: {
            display_name: profile.display_name,
            website: profile.website,
            channels: profile.channels,
            country: profile.country,
            claim_email: profile.claim_email,
          },
        },
      },
      { returnDocument: 'after' },
    )
    .lean<ApplicationRow>();
  // A concurrent decision or edit won the race: the caller reads again.
  if (!updated) throw new ApiError({ code: 'conflict', detail: 'The application changed meanwhile; read it and retry.' });
  return profileView(updated);
}

/** What a creator sees before claiming in the portal: the application's status, profile, links and numbers. */
export async function claimPreview(deps: MonetizeDeps, id: string, accessSecret: string) {
  const status = await applicationStatus(deps, id, { access_secret: accessSecret });
  const profile = await readProfile(deps, id, { access_secret: accessSecret });
  return {
    ...profile,
    links: status.links.length,
    clicks: status.clicks,
    conversions: status.conversions,
    pending_earnings: status.pending_earnings,
    claim_deadline: status.claim.deadline,
  };
}

/**
 * The portal's claim: a signed-in person (address confirmed) takes the provisional account as its
 * owner and completes the profile the review needs; the application goes `under_review`. Once an
 * operator approves it, the owner issues their own keys in the portal.
 */
export async function claimApplication(
  deps: MonetizeDeps,
  person: { userId: string; email: string; address?: string; addressHash?: string; userAgent?: string; requestId?: string },
  input: InputOf<typeof CLAIM_INPUT>,
  now = new Date(),
) {
  const app = await authorizedApplication(deps, input.application, input.access_secret);
  if (app.status === 'approved' || app.status === 'rejected')
    throw new ApiError({ code: 'conflict', detail: `The application is ${app.status}; it can no longer be claimed.` });
  if (app.claimed_by && app.claimed_by !== person.userId)
    throw new ApiError({ code: 'conflict', detail: 'Someone else has claimed this application already.' });
  const profile = {
    display_name: input.display_name,
    website: publicUrl('website', input.website),
    channels: input.channels,
    country: country(input.country)!,
    claim_email: person.email,
  };
  await own(deps).MonetizeApplication.updateOne({ _id: app._id }, { $set: { profile, status: 'under_review', claimed_by: person.userId, updated_at: now } });
  await deps.data.people.addMember(app.publisher_id, person.userId, 'owner', now);
  await deps.data.audit.record({
    account_id: app.publisher_id,
    type: 'account_claimed',
    actor: { user_id: person.userId, email: person.email },
    detail: { application_id: app._id },
    address: person.address,
    address_hash: person.addressHash,
    user_agent: person.userAgent,
    request_id: person.requestId,
  });
  return { application_id: app._id, account_id: app.publisher_id, status: 'under_review' as const };
}
