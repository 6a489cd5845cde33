/**
 * Programs as a publisher sees them: its assignments (approved, pending, rejected), programs open
 * for application, and applying, where the program's settings decide auto-approval. Operators
 * decide applications through `setAssignment`, the same rules and writes.
 */
import { ApiError } from '@cw/errors';
import { WRITERS, type Policy, type Principal } from '@cw/auth';
import { literalPattern } from '@cw/db';
import type { ProgramRow } from './data/programs.data';
import { own, type ProgramsDeps } from './deps';
import { useCase, pageWindow, type InputOf, type ListSort } from '@cw/usecase';
import { APPLY_INPUT, JOINABLE_PROGRAMS_INPUT, LIST_PROGRAMS_INPUT, PROGRAM_BY_ID_INPUT } from './programs.schemas';

export type Relationship = 'approved' | 'pending' | 'rejected' | 'available';
export type AssignmentStatus = Exclude<Relationship, 'available'>;

const READ_PROGRAMS_POLICY: Policy = { budget: 'programs', scope: 'links:write' };
const APPLY_POLICY: Policy = {
  budget: 'programs',
  refuseKinds: ['read_only'],
  refuseDetail: 'Demo accounts and read-only keys cannot apply to programs.',
  refuseDemoAccounts: true,
  roles: WRITERS,
  scope: 'links:write',
};

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

export type ProgramView = ReturnType<typeof programView>;

async function present(deps: ProgramsDeps, rows: ProgramRow[], relation: (id: number) => Relationship): Promise<ProgramView[]> {
  const names = await deps.data.programs.merchantNames(rows.map((r) => r.merchant_id));
  return rows.map((r) => programView(r, names.get(r.merchant_id), relation(r._id)));
}

function nameFilter(search: string | undefined): Record<string, unknown> {
  return search ? { name: { $regex: literalPattern(search), $options: 'i' } } : {};
}

/** Program lists: by program id. */
const BY_ID: ListSort = [['_id', 1]];

/** The caller's programs; with include_available, also those open to it. */
export const listPrograms = useCase(
  READ_PROGRAMS_POLICY,
  async function listPrograms(deps: ProgramsDeps, principal: Principal, input: InputOf<typeof LIST_PROGRAMS_INPUT>) {
    const status = await deps.data.programs.assignments(principal.publisher._id);
    const mine = { _id: { $in: [...status.keys()] } };
    const filter: Record<string, unknown> = {
      ...(input.include_available ? { $or: [mine, { status: 'active', joinable: true }] } : mine),
      ...nameFilter(input.search),
    };
    const w = pageWindow({ list: 'programs', account: principal.publisher._id, secret: deps.config.secretKey }, BY_ID, input);
    const rows = await own(deps)
      .Program.find(w.filter(filter))
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<ProgramRow[]>();
    return w.envelope(rows, (page) => present(deps, page, (id) => status.get(id) ?? 'available'));
  },
  LIST_PROGRAMS_INPUT,
);

/**
 * One program as `listPrograms` with include_available shows it: one the caller has an assignment
 * to (whatever its status), or an active one open for application; null otherwise. Two reads by
 * key (the program, the caller's assignment to it), whatever the size of the network.
 */
export const programById = useCase(
  READ_PROGRAMS_POLICY,
  async function programById(deps: ProgramsDeps, principal: Principal, input: InputOf<typeof PROGRAM_BY_ID_INPUT>): Promise<ProgramView | null> {
    const [program, membership] = await Promise.all([
      deps.data.programs.byId(input.program_id),
      own(deps).Membership.findOne({ publisher_id: principal.publisher._id, program_id: input.program_id }, { status: 1 }).lean(),
    ]);
    if (!program) return null;
    const relationship = membership ? (membership.status as AssignmentStatus) : program.status === 'active' && program.joinable ? 'available' : undefined;
    if (relationship === undefined) return null;
    const [view] = await present(deps, [program], () => relationship);
    return view ?? null;
  },
  PROGRAM_BY_ID_INPUT,
);

/** Active programs open for application the caller has no assignment to. */
export const joinablePrograms = useCase(
  READ_PROGRAMS_POLICY,
  async function joinablePrograms(deps: ProgramsDeps, principal: Principal, input: InputOf<typeof JOINABLE_PROGRAMS_INPUT>) {
    const assigned = [...(await deps.data.programs.assignments(principal.publisher._id)).keys()];
    const filter: Record<string, unknown> = { status: 'active', joinable: true, _id: { $nin: assigned }, ...nameFilter(input.search) };
    const w = pageWindow({ list: 'programs/joinable', account: principal.publisher._id, secret: deps.config.secretKey }, BY_ID, input);
    const rows = await own(deps)
      .Program.find(w.filter(filter))
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean<ProgramRow[]>();
    return w.envelope(rows, (page) => present(deps, page, () => 'available'));
  },
  JOINABLE_PROGRAMS_INPUT,
);

/** A `campaign_id` (the wire's name of the program's merchant) that is not the program's merchant. */
export function merchantMismatch(): ApiError {
  return new ApiError({
    code: 'invalid_parameter',
    detail: "Invalid parameter 'campaign_id': it is not the campaign of this program.",
    errors: [{ param: 'campaign_id', detail: 'is not the campaign of this program' }],
  });
}

export interface ApplyOutcome {
  /** True when this request created an approved assignment (auto-approval): the API's 201. */
  approvedNow: boolean;
  view: { program_id: number; status: AssignmentStatus; created: boolean; applied_at: Date | null; decided_at: Date | null; program: ProgramView };
}

/**
 * Applies to a program: approved at once when the program auto-approves, pending review
 * otherwise; an existing assignment stands (a decision is not changed by re-applying).
 */
export const applyToProgram = useCase(
  APPLY_POLICY,
  async function applyToProgram(deps: ProgramsDeps, principal: Principal, input: InputOf<typeof APPLY_INPUT>): Promise<ApplyOutcome> {
    const program = await deps.data.programs.byId(input.program_id);
    if (!program || program.status !== 'active')
      throw new ApiError({ code: 'not_found', detail: `Program ${input.program_id} does not exist or is not active.` });
    if (input.campaign_id !== undefined && String(input.campaign_id) !== String(program.merchant_id)) throw merchantMismatch();
    const publisherId = principal.publisher._id;
    const existing = await own(deps).Membership.findOne({ publisher_id: publisherId, program_id: program._id }).lean();
    const names = await deps.data.programs.merchantNames([program.merchant_id]);
    const view = (status: AssignmentStatus) => programView(program, names.get(program.merchant_id), status);
    if (existing) {
      const status = existing.status as AssignmentStatus;
      return {
        approvedNow: false,
        view: {
          program_id: program._id,
          status,
          created: false,
          applied_at: existing.applied_at ?? null,
          decided_at: existing.decided_at ?? null,
          program: view(status),
        },
      };
    }
    if (!program.joinable) throw new ApiError({ code: 'program_not_joinable', detail: `Program ${program._id} is by invitation only.` });
    const now = new Date();
    const status: AssignmentStatus = program.auto_approve ? 'approved' : 'pending';
    try {
      await own(deps).Membership.create({
        publisher_id: publisherId,
        program_id: program._id,
        status,
        applied_at: now,
        decided_at: status === 'approved' ? now : undefined,
        eligibility_checked_at: status === 'approved' ? now : undefined,
        created_at: now,
        updated_at: now,
      });
    } catch (e) {
      if ((e as { code?: number }).code !== 11000) throw e;
      // A concurrent application won: report what it produced.
      return applyToProgram(deps, principal, input);
    }
    return {
      approvedNow: status === 'approved',
      view: { program_id: program._id, status, created: true, applied_at: now, decided_at: status === 'approved' ? now : null, program: view(status) },
    };
  },
  APPLY_INPUT,
);

/**
 * The operator's decision on an assignment (approve or reject an application, or assign
 * directly). With `mustExist`, only an existing application may be decided.
 */
export async function setAssignment(
  deps: ProgramsDeps,
  publisherId: string,
  programId: number,
  status: AssignmentStatus,
  opts: { mustExist?: boolean } = {},
): Promise<{ publisher: string; program: number; status: AssignmentStatus }> {
  const [publisher, program] = await Promise.all([deps.data.auth.publisherExists(publisherId), own(deps).Program.exists({ _id: programId })]);
  if (!publisher) throw new ApiError({ code: 'not_found', detail: `publisher ${publisherId} does not exist` });
  if (!program) throw new ApiError({ code: 'not_found', detail: `program ${programId} does not exist` });
  if (opts.mustExist && !(await own(deps).Membership.exists({ publisher_id: publisherId, program_id: programId }))) {
    throw new ApiError({ code: 'not_found', detail: `publisher ${publisherId} has not applied to program ${programId}` });
  }
  await deps.data.programs.saveAssignments([{ publisher_id: publisherId, program_id: programId, status }]);
  return { publisher: publisherId, program: programId, status };
}
