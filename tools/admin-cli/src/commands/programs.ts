/** Merchants, programs, assignments and applications, merchant tokens: through the programs lib. */
import { operatorIssueMerchantToken } from '@cw/account';
import {
  operatorCreateMerchant,
  operatorCreateProgram,
  operatorListMerchants,
  operatorListPrograms,
  operatorSetAssignment,
  operatorSetProgramStatus,
  PROGRAM_STATUSES,
  type AssignmentStatus,
} from '@cw/programs';
import { choice, countries, int, list, str, url, UsageError, type CliDeps, type CommandSpec, type Options } from './shared';

export const PROGRAMS_COMMANDS: Record<string, CommandSpec> = {
  'merchant:create': {
    summary: 'Create a merchant',
    options: {
      id: { type: 'string', required: true, doc: 'merchant id (integer)' },
      name: { type: 'string', required: true, doc: 'name' },
      domains: { type: 'string', doc: 'shop domains, comma-separated' },
    },
    run: (deps, o) => operatorCreateMerchant(deps, deps.operator, { id: int(o, 'id')!, name: str(o, 'name')!, domains: list(o, 'domains') }),
  },
  'merchant:list': {
    summary: 'List merchants (the API calls a merchant id campaign_id), by id',
    options: { limit: { type: 'string', doc: 'at most this many (default 100)' } },
    run: (deps, o) => operatorListMerchants(deps, deps.operator, { limit: int(o, 'limit') }),
  },
  'program:list': {
    summary: 'List programs with their merchant and terms, by id',
    options: {
      merchant: { type: 'string', doc: 'only this merchant' },
      status: { type: 'string', doc: 'active, paused or closed' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: (deps, o) =>
      operatorListPrograms(deps, deps.operator, { merchant: int(o, 'merchant'), status: choice(o, 'status', PROGRAM_STATUSES), limit: int(o, 'limit') }),
  },
  'program:create': {
    summary: 'Create a program of a merchant',
    options: {
      id: { type: 'string', required: true, doc: 'program id (integer)' },
      merchant: { type: 'string', required: true, doc: 'merchant id' },
      name: { type: 'string', required: true, doc: 'name' },
      country: { type: 'string', required: true, doc: 'market, e.g. DE' },
      currency: { type: 'string', doc: 'ISO 4217 (default EUR)' },
      'landing-url': { type: 'string', required: true, doc: 'default landing URL' },
      'allowed-domains': { type: 'string', doc: 'hostnames landing URLs may use (default: the landing URL host)' },
      'click-id-param': { type: 'string', doc: 'query parameter for the click id (default cw_click_id)' },
      commission: { type: 'string', doc: 'commission shown to publishers, e.g. "8% per sale"' },
      'auto-approve': { type: 'boolean', doc: 'approve applications automatically' },
      'not-joinable': { type: 'boolean', doc: 'closed for applications' },
    },
    run: async (deps, o) => {
      const [country] = countries(o, 'country') ?? [];
      const doc = await operatorCreateProgram(deps, deps.operator, {
        id: int(o, 'id')!,
        merchant: int(o, 'merchant')!,
        name: str(o, 'name')!,
        country: country!,
        currency: str(o, 'currency'),
        landingUrl: url(str(o, 'landing-url'), 'landing-url'),
        allowedDomains: list(o, 'allowed-domains'),
        clickIdParam: str(o, 'click-id-param'),
        commission: str(o, 'commission'),
        autoApprove: !!o['auto-approve'],
        joinable: !o['not-joinable'],
      });
      return {
        id: doc._id,
        merchant_id: doc.merchant_id,
        country,
        auto_approve: doc.auto_approve,
        joinable: doc.joinable,
        allowed_domains: doc.allowed_domains,
        click_id_param: doc.click_id_param,
      };
    },
  },
  'program:set-status': {
    summary: 'Pause, close or reactivate a program (its products and links stop or resume on the next request)',
    options: { id: { type: 'string', required: true, doc: 'program id' }, status: { type: 'string', required: true, doc: 'active, paused or closed' } },
    run: (deps, o) => operatorSetProgramStatus(deps, deps.operator, { program: int(o, 'id')!, status: choice(o, 'status', PROGRAM_STATUSES)! }),
  },
  'program:assign': {
    summary: 'Assign a publisher to a program (approved, pending or rejected)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      program: { type: 'string', required: true, doc: 'program id' },
      status: { type: 'string', doc: 'approved (default), pending, rejected' },
    },
    run: async (deps, o) => decide(deps, o, str(o, 'status') ?? 'approved'),
  },
  'application:approve': {
    summary: "Approve a publisher's application to a program",
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, program: { type: 'string', required: true, doc: 'program id' } },
    run: async (deps, o) => decide(deps, o, 'approved', true),
  },
  'application:reject': {
    summary: "Reject a publisher's application to a program",
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, program: { type: 'string', required: true, doc: 'program id' } },
    run: async (deps, o) => decide(deps, o, 'rejected', true),
  },
  'merchant-token:issue': {
    summary:
      "Issue a merchant token (shown once) for a merchant's conversion intake and status changes; revoke or rotate it with credential:revoke / credential:rotate",
    options: { merchant: { type: 'string', required: true, doc: 'merchant id' }, label: { type: 'string', doc: 'label' } },
    run: async (deps, o) => {
      const merchant = int(o, 'merchant')!;
      if (!(await deps.data.programs.merchantExists(merchant))) throw new UsageError(`merchant ${merchant} does not exist`);
      const c = await operatorIssueMerchantToken(deps, deps.operator, { merchant, label: str(o, 'label') });
      return { id: c.id, type: c.type, merchant, prefix: c.prefix, secret: c.secret };
    },
  },
};

/** An assignment decision through the programs lib (the same rule and write as everywhere). */
async function decide(deps: CliDeps, o: Options, status: string, mustExist = false) {
  if (!['approved', 'pending', 'rejected'].includes(status)) throw new UsageError('--status must be approved, pending or rejected');
  return operatorSetAssignment(deps, deps.operator, {
    publisher: str(o, 'publisher')!,
    program: int(o, 'program')!,
    status: status as AssignmentStatus,
    mustExist,
  });
}
