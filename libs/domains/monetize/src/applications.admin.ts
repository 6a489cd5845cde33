/** Operators review instant-monetization claims (the operator CLI calls these). */
import { issueCredential } from '@cw/auth';
import type { ApplicationStatus } from './data/monetize-application.schema';
import { ApiError } from '@cw/errors';
import type { ApplicationRow } from './monetize.service';
import { own, type MonetizeDeps } from './deps';

export async function listApplications(deps: Pick<MonetizeDeps, 'data'>, opts: { status?: ApplicationStatus; limit?: number } = {}, now = new Date()) {
  const rows = await own(deps)
    .MonetizeApplication.find(opts.status ? { status: opts.status } : {}, { secret_hash: 0, address_hash: 0 })
    .sort({ created_at: -1, _id: 1 })
    .limit(opts.limit ?? 100)
    .lean<ApplicationRow[]>();
  const count = await deps.data.links.linkCounts(rows.map((r) => r.publisher_id));
  return rows.map((r) => ({
    application_id: r._id,
    status: r.status,
    publisher_id: r.publisher_id,
    source: r.source,
    publisher_url: r.publisher_url ?? null,
    placement_description: r.placement_description ?? null,
    channel: r.channel ?? null,
    profile: r.profile,
    links: count.get(r.publisher_id) ?? 0,
    claim_deadline: r.claim_deadline,
    overdue: !['approved', 'rejected'].includes(r.status) && r.claim_deadline < now,
    created_at: r.created_at,
    decided_at: r.decided_at ?? null,
  }));
}

async function decide(
  deps: Pick<MonetizeDeps, 'data'>,
  id: string,
  from: ApplicationStatus[],
  to: 'approved' | 'rejected',
  note: string | undefined,
  now: Date,
): Promise<ApplicationRow> {
  const app = await own(deps)
    .MonetizeApplication.findOneAndUpdate(
      { _id: id, status: { $in: from } },
      { $set: { status: to, decided_at: now, updated_at: now, ...(note ? { decision_note: note } : {}) } },
      { returnDocument: 'after' },
    )
    .lean<ApplicationRow>();
  if (app) return app;
  const existing = await own(deps).MonetizeApplication.findById(id, { status: 1 }).lean();
  if (!existing) throw new ApiError({ code: 'not_found', detail: `application ${id} does not exist` });
  throw new ApiError({ code: 'invalid_transition', detail: `application ${id} is ${existing.status}; only ${from.join(' or ')} applications can be ${to}` });
}

/**
 * Approves a claimed application: its provisional publisher becomes an active account with the
 * profile's name, website, channels and country, keeping its links, clicks and conversions. Claimed
 * in the portal, its owner issues their own keys there; claimed through the API only (no person
 * yet), it gets a live API key, returned once for the operator to hand over.
 */
export async function approveApplication(deps: Pick<MonetizeDeps, 'data'>, id: string, now = new Date()) {
  const app = await decide(deps, id, ['claimed', 'under_review'], 'approved', undefined, now);
  const p = app.profile;
  await deps.data.auth.updatePublisher(app.publisher_id, {
    status: 'active',
    feed_access: true,
    ...(p?.display_name ? { name: p.display_name } : {}),
    ...(p?.website ? { website: p.website } : {}),
    ...(p?.channels?.length ? { channels: p.channels } : {}),
    ...(p?.country ? { markets: [p.country] } : {}),
    updated_at: now,
  });
  const key = app.claimed_by ? null : await issueCredential(deps.data.auth, app.publisher_id, 'api_key', 'live', 'instant monetization claim');
  return {
    application_id: app._id,
    status: app.status,
    account_id: app.publisher_id,
    claim_email: p?.claim_email ?? null,
    claimed_in_portal: !!app.claimed_by,
    api_key: key ? { id: key.id, prefix: key.prefix, secret: key.secret } : null,
  };
}

/** Rejects an application: its provisional publisher is deactivated and never becomes an account; its held earnings are not paid. */
export async function rejectApplication(deps: Pick<MonetizeDeps, 'data'>, id: string, note?: string, now = new Date()) {
  const app = await decide(deps, id, ['provisional', 'claimed', 'under_review'], 'rejected', note, now);
  await deps.data.auth.updatePublisher(app.publisher_id, { status: 'inactive', updated_at: now });
  return { application_id: app._id, status: app.status, account_id: app.publisher_id };
}
