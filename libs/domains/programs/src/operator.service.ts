/**
 * The network's operators acting on merchants, programs and assignments (the admin CLI, the
 * portal's operator area): support reads, admin creates and decides; every act is recorded in the
 * audit log with the operator and what changed.
 */
import type { AuditData } from '@cw/audit';
import { recordOperatorAct } from '@cw/audit';
import { ApiError } from '@cw/errors';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import { own, type ProgramsDeps } from './deps';
import type { ProgramInput } from './data/programs.data';
import { setAssignment, type AssignmentStatus } from './programs.service';

/** The programs lib's deps and the audit log. */
export type OperatorProgramsDeps = ProgramsDeps & UseCaseDeps<{ audit: AuditData }>;

export const PROGRAM_STATUSES = ['active', 'paused', 'closed'] as const;
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });
const notFound = (detail: string) => new ApiError({ code: 'not_found', detail });
const conflict = (detail: string) => new ApiError({ code: 'conflict', detail });

export const operatorCreateMerchant = operatorUseCase(
  'admin',
  async function operatorCreateMerchant(deps: OperatorProgramsDeps, operator, input: { id: number; name: string; domains?: string[] }) {
    if (await deps.data.programs.merchantExists(input.id)) throw conflict(`merchant ${input.id} already exists`);
    const domains = input.domains ?? [];
    await deps.data.programs.createMerchants([{ _id: input.id, name: input.name, domains }]);
    await recordOperatorAct(deps.data.audit, operator, 'merchant_created', { merchant_id: input.id, name: input.name, domains });
    return { id: input.id, name: input.name, domains };
  },
);

export const operatorListMerchants = operatorUseCase(
  'support',
  async function operatorListMerchants(deps: OperatorProgramsDeps, _operator, input: { limit?: number }) {
    const rows = await own(deps)
      .Merchant.find({})
      .sort({ _id: 1 })
      .limit(input.limit ?? 100)
      .lean();
    return rows.map((m) => ({ id: m._id, name: m.name, domains: m.domains }));
  },
);

export const operatorListPrograms = operatorUseCase(
  'support',
  async function operatorListPrograms(deps: OperatorProgramsDeps, _operator, input: { merchant?: number; status?: ProgramStatus; limit?: number }) {
    const rows = await own(deps)
      .Program.find({ ...(input.merchant !== undefined ? { merchant_id: input.merchant } : {}), ...(input.status ? { status: input.status } : {}) })
      .sort({ _id: 1 })
      .limit(input.limit ?? 100)
      .lean();
    const names = await deps.data.programs.merchantNames(rows.map((p) => p.merchant_id));
    return rows.map((p) => ({
      id: p._id,
      name: p.name,
      merchant: { id: p.merchant_id, name: names.get(p.merchant_id) ?? null },
      status: p.status,
      joinable: p.joinable,
      auto_approve: p.auto_approve,
      countries: p.countries,
      currency: p.currency,
      commission_rate: p.commission_rate ? p.commission_rate.toString() : null,
      commission_fixed: p.commission_fixed ? p.commission_fixed.toString() : null,
      cookie_days: p.cookie_days,
      default_landing_url: p.default_landing_url,
    }));
  },
);

export interface NewProgram {
  id: number;
  merchant: number;
  name: string;
  country: string;
  currency?: string;
  landingUrl: string;
  allowedDomains?: string[];
  clickIdParam?: string;
  commission?: string;
  autoApprove?: boolean;
  joinable?: boolean;
}

export const operatorCreateProgram = operatorUseCase('admin', async function operatorCreateProgram(deps: OperatorProgramsDeps, operator, input: NewProgram) {
  if (!(await deps.data.programs.merchantExists(input.merchant))) throw notFound(`merchant ${input.merchant} does not exist`);
  if (await deps.data.programs.exists(input.id)) throw conflict(`program ${input.id} already exists`);
  const currency = (input.currency ?? 'EUR').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw invalid('currency', 'must be an ISO 4217 code');
  const param = input.clickIdParam ?? 'cw_click_id';
  if (!/^[A-Za-z0-9_]{1,40}$/.test(param)) throw invalid('click_id_param', 'must be letters, digits or _');
  let landing: URL;
  try {
    landing = new URL(input.landingUrl);
  } catch {
    throw invalid('landing_url', 'must be an absolute URL');
  }
  if (landing.protocol !== 'https:' && landing.protocol !== 'http:') throw invalid('landing_url', 'must be an http(s) URL');
  const doc: ProgramInput = {
    _id: input.id,
    name: input.name,
    merchant_id: input.merchant,
    countries: [input.country],
    currency,
    default_landing_url: landing.href,
    allowed_domains: input.allowedDomains ?? [landing.hostname.replace(/^www\./, '')],
    click_id_param: param,
    commission_description: input.commission ?? '',
    auto_approve: !!input.autoApprove,
    joinable: input.joinable ?? true,
  };
  const [created] = await deps.data.programs.create([doc]);
  await recordOperatorAct(deps.data.audit, operator, 'program_created', {
    program_id: created!._id,
    merchant_id: created!.merchant_id,
    country: input.country,
    auto_approve: created!.auto_approve,
    joinable: created!.joinable,
  });
  return created!;
});

export const operatorSetProgramStatus = operatorUseCase(
  'admin',
  async function operatorSetProgramStatus(deps: OperatorProgramsDeps, operator, input: { program: number; status: ProgramStatus }) {
    const before = await deps.data.programs.byId(input.program, { status: 1 });
    if (!before) throw notFound(`program ${input.program} does not exist`);
    await deps.data.programs.setStatus(input.program, input.status);
    await recordOperatorAct(deps.data.audit, operator, 'program_status_changed', { program_id: input.program, from: before.status, to: input.status });
    return { program_id: input.program, status: input.status };
  },
);

/** Assigns a publisher to a program, or decides their application (`mustExist`): the same rule and write as everywhere. */
export const operatorSetAssignment = operatorUseCase(
  'admin',
  async function operatorSetAssignment(
    deps: OperatorProgramsDeps,
    operator,
    input: { publisher: string; program: number; status: AssignmentStatus; mustExist?: boolean },
  ) {
    const result = await setAssignment(deps, input.publisher, input.program, input.status, { mustExist: input.mustExist });
    await recordOperatorAct(deps.data.audit, operator, 'assignment_changed', { program_id: input.program, status: input.status }, input.publisher);
    return result;
  },
);
