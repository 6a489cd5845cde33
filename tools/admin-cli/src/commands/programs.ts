/** Merchants, programs, assignments and applications, merchant tokens: through the programs lib. */
import { operatorIssueMerchantToken } from '@cw/account';
import { setAssignment, type AssignmentStatus } from '@cw/programs';
import { choice, countries, int, list, mustProgram, str, url, UsageError, type CliDeps, type CommandSpec, type Options } from './shared';

export const PROGRAMS_COMMANDS: Record<string, CommandSpec> = {
  'merchant:create': {
    summary: 'Create a merchant',
    options: {
      id: { type: 'string', required: true, doc: 'merchant id (integer)' },
      name: { type: 'string', required: true, doc: 'name' },
      domains: { type: 'string', doc: 'shop domains, comma-separated' },
    },
    run: async (deps, o) => {
      const id = int(o, 'id')!;
      if (await deps.data.programs.merchantExists(id)) throw new UsageError(`merchant ${id} already exists`);
      const domains = list(o, 'domains') ?? [];
      await deps.data.programs.createMerchants([{ _id: id, name: str(o, 'name')!, domains }]);
      return { id, name: str(o, 'name'), domains };
    },
  },
  'merchant:list': {
    summary: 'List merchants (the API calls a merchant id campaign_id), by id',
    options: { limit: { type: 'string', doc: 'at most this many (default 100)' } },
    run: async (deps, o) => {
      const rows = await deps.models.Merchant.find({})
        .sort({ _id: 1 })
        .limit(int(o, 'limit') ?? 100)
        .lean();
      return rows.map((m) => ({ id: m._id, name: m.name, domains: m.domains }));
    },
  },
  'program:list': {
    summary: 'List programs with their merchant and terms, by id',
    options: {
      merchant: { type: 'string', doc: 'only this merchant' },
      status: { type: 'string', doc: 'active, paused or closed' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: async (deps, o) => {
      const merchant = int(o, 'merchant');
      const status = choice(o, 'status', ['active', 'paused', 'closed'] as const);
      const rows = await deps.models.Program.find({ ...(merchant !== undefined ? { merchant_id: merchant } : {}), ...(status ? { status } : {}) })
        .sort({ _id: 1 })
        .limit(int(o, 'limit') ?? 100)
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
      const id = int(o, 'id')!;
      const merchant = int(o, 'merchant')!;
      if (!(await deps.data.programs.merchantExists(merchant))) throw new UsageError(`merchant ${merchant} does not exist`);
      if (await deps.data.programs.byId(id, { _id: 1 })) throw new UsageError(`program ${id} already exists`);
      const [country] = countries(o, 'country') ?? [];
      const currency = (str(o, 'currency') ?? 'EUR').toUpperCase();
      if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--currency must be an ISO 4217 code');
      const landing = url(str(o, 'landing-url'), 'landing-url');
      const param = str(o, 'click-id-param') ?? 'cw_click_id';
      if (!/^[A-Za-z0-9_]{1,40}$/.test(param)) throw new UsageError('--click-id-param must be letters, digits or _');
      const [doc] = await deps.data.programs.create([
        {
          _id: id,
          name: str(o, 'name')!,
          merchant_id: merchant,
          countries: [country],
          currency,
          default_landing_url: landing,
          allowed_domains: list(o, 'allowed-domains') ?? [new URL(landing).hostname.replace(/^www\./, '')],
          click_id_param: param,
          commission_description: str(o, 'commission') ?? '',
          auto_approve: !!o['auto-approve'],
          joinable: !o['not-joinable'],
        },
      ]);
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
    run: async (deps, o) => {
      const status = choice(o, 'status', ['active', 'paused', 'closed'] as const)!;
      const program = await mustProgram(deps, int(o, 'id')!);
      await deps.data.programs.setStatus(program._id, status);
      return { program_id: program._id, status };
    },
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
  return setAssignment(deps, str(o, 'publisher')!, int(o, 'program')!, status as AssignmentStatus, { mustExist });
}
