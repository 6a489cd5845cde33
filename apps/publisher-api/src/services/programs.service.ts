/**
 * Programs as a publisher sees them: its assignments (approved, pending, rejected), programs open
 * for application, and applying, where the program's settings decide auto-approval.
 */
import { ApiError } from '@cw/errors';
import type { Principal } from '@cw/auth';
import type { Models, ProgramDoc } from '@cw/db';
import { envelope, skipFor } from './paging';

export type Relationship = 'approved' | 'pending' | 'rejected' | 'available';

interface ProgramRow extends ProgramDoc {
  _id: number;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function merchantNames(models: Models, ids: number[]) {
  const rows = await models.Merchant.find({ _id: { $in: [...new Set(ids)] } }, { name: 1 }).lean();
  return new Map(rows.map((m) => [Number(m._id), m.name]));
}

export function programView(p: ProgramRow, merchantName: string | undefined, relationship: Relationship) {
  return {
    id: p._id,
    name: p.name,
    merchant: { id: p.merchant_id, name: merchantName ?? '' },
    campaign_id: p.merchant_id,
    relationship,
    status: p.status,
    description: p.description,
    category: p.category,
    countries: p.countries,
    currency: p.currency,
    commission: p.commission_description,
    cookie_days: p.cookie_days,
    joinable: p.joinable,
    auto_approve: p.auto_approve,
    default_landing_url: p.default_landing_url,
    allowed_domains: p.allowed_domains,
  };
}

async function present(models: Models, rows: ProgramRow[], relation: (id: number) => Relationship) {
  const names = await merchantNames(models, rows.map((r) => r.merchant_id));
  return rows.map((r) => programView(r, names.get(r.merchant_id), relation(r._id)));
}

/** GET /programs/: the caller's programs; with include_available, also those open to it. */
export async function listPrograms(models: Models, principal: Principal, q: { search?: string; include_available?: boolean; page: number; page_size: number }) {
  const memberships = await models.Membership.find({ publisher_id: principal.publisher._id }, { program_id: 1, status: 1 }).lean();
  const status = new Map(memberships.map((m) => [m.program_id, m.status as Relationship]));
  const filter: Record<string, unknown> = q.include_available
    ? { $or: [{ _id: { $in: [...status.keys()] } }, { status: 'active', joinable: true }] }
    : { _id: { $in: [...status.keys()] } };
  if (q.search) filter.name = { $regex: escapeRegex(q.search), $options: 'i' };
  const rows = await models.Program.find(filter).sort({ _id: 1 }).skip(skipFor(q.page, q.page_size)).limit(q.page_size + 1).lean<ProgramRow[]>();
  return envelope(await present(models, rows, (id) => status.get(id) ?? 'available'), q.page, q.page_size);
}

/** GET /programs/joinable/: active programs open for application the caller has no assignment to. */
export async function joinablePrograms(models: Models, principal: Principal, q: { search?: string; page: number; page_size: number }) {
  const assigned = (await models.Membership.find({ publisher_id: principal.publisher._id }, { program_id: 1 }).lean()).map((m) => m.program_id);
  const filter: Record<string, unknown> = { status: 'active', joinable: true, _id: { $nin: assigned } };
  if (q.search) filter.name = { $regex: escapeRegex(q.search), $options: 'i' };
  const rows = await models.Program.find(filter).sort({ _id: 1 }).skip(skipFor(q.page, q.page_size)).limit(q.page_size + 1).lean<ProgramRow[]>();
  return envelope(await present(models, rows, () => 'available'), q.page, q.page_size);
}

export function campaignMismatch(): ApiError {
  return new ApiError({
    code: 'invalid_parameter',
    detail: "Invalid parameter 'campaign_id': it is not the campaign of this program.",
    errors: [{ param: 'campaign_id', detail: 'is not the campaign of this program' }],
  });
}

/**
 * POST /programs/apply/: 201 when the caller is approved by this request (auto-approval),
 * 200 otherwise, with the resulting relationship: pending review, or already approved, pending
 * or rejected (a decision stands: re-applying changes nothing).
 */
export async function applyToProgram(models: Models, principal: Principal, body: { program_id: number; campaign_id?: string | number }) {
  const program = await models.Program.findById(body.program_id).lean<ProgramRow>();
  if (!program || program.status !== 'active') throw new ApiError({ code: 'not_found', detail: `Program ${body.program_id} does not exist or is not active.` });
  if (body.campaign_id !== undefined && String(body.campaign_id) !== String(program.merchant_id)) throw campaignMismatch();
  const publisherId = principal.publisher._id;
  const existing = await models.Membership.findOne({ publisher_id: publisherId, program_id: program._id }).lean();
  const names = await merchantNames(models, [program.merchant_id]);
  const view = (status: Relationship) => programView(program, names.get(program.merchant_id), status);
  if (existing) {
    return { status: 200, body: { program_id: program._id, status: existing.status, created: false, applied_at: existing.applied_at ?? null, decided_at: existing.decided_at ?? null, program: view(existing.status as Relationship) } };
  }
  if (!program.joinable) {
    throw new ApiError({ code: 'program_not_joinable', detail: `Program ${program._id} is by invitation only.` });
  }
  const now = new Date();
  const status = program.auto_approve ? 'approved' : 'pending';
  try {
    await models.Membership.create({ publisher_id: publisherId, program_id: program._id, status, applied_at: now, decided_at: status === 'approved' ? now : undefined, created_at: now, updated_at: now });
  } catch (e) {
    if ((e as { code?: number }).code !== 11000) throw e;
    // A concurrent application won: report what it produced.
    return applyToProgram(models, principal, body);
  }
  return {
    status: status === 'approved' ? 201 : 200,
    body: { program_id: program._id, status, created: true, applied_at: now, decided_at: status === 'approved' ? now : null, program: view(status) },
  };
}
