/**
 * Personal coupon codes as a publisher asks for them: one per request at a program it is approved
 * for, the wanted code or one made under the program's rules, active at once or after an
 * operator's review. A code is unique at its merchant whatever its case; a taken code answers 409
 * `code_taken` and never says who holds it.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '@cw/errors';
import { WRITERS, type Policy, type Principal } from '@cw/auth';
import { PAGE_INPUT, pageEnvelopeSchema, pageOf, skipFor, useCase, type InputOf } from '@cw/usecase';
import { codeProblem, makeCode, normaliseCode, rulesOf } from './code-rules';
import { CODE_STATUSES, type CodeRow } from './data/code.schema';
import { own, type CodesDeps } from './deps';

const READ_CODES_POLICY: Policy = { budget: 'links', scope: 'links:write' };
const WRITE_CODES_POLICY: Policy = {
  budget: 'links',
  refuseKinds: ['read_only'],
  refuseDetail: 'Demo accounts and read-only keys cannot request codes.',
  refuseDemoAccounts: true,
  roles: WRITERS,
  scope: 'links:write',
};

/** How many codes (active or waiting) one publisher may hold at one program: codes are not for hoarding. */
export const MAX_CODES_PER_PROGRAM = 10;

export const REQUEST_CODE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['program_id'],
  properties: {
    program_id: { type: 'integer', minimum: 1, maximum: 4294967295, description: 'A program approved for you.' },
    code: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      description: "The code you want (letters and digits, any case; kept upper case) under the program's prefix and length. Absent: one is made for you.",
    },
  },
} as const;

export const LIST_CODES_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    program_id: { type: 'integer', minimum: 1, maximum: 4294967295 },
    status: { type: 'string', enum: CODE_STATUSES },
    page: PAGE_INPUT,
    page_size: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const;

/** One code as its publisher sees it. */
export const CODE_SCHEMA = {
  type: 'object',
  required: ['id', 'code', 'program_id', 'status', 'created_at'],
  properties: {
    id: { type: 'string', description: 'cod_…' },
    code: { type: 'string', description: 'What shoppers type at the checkout (any case works).' },
    program_id: { type: 'integer' },
    status: {
      type: 'string',
      enum: CODE_STATUSES,
      description: 'active: credits sales now; pending_review: waiting for the network; rejected: refused (the code is free again).',
    },
    created_at: { type: 'string', format: 'date-time' },
  },
};

export const CODE_PAGE_SCHEMA = pageEnvelopeSchema(CODE_SCHEMA);

export const codeView = (c: CodeRow) => ({ id: c._id, code: c.code, program_id: c.program_id, status: c.status, created_at: c.created_at });

export const CODE_RULES_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['program_id'],
  properties: { program_id: { type: 'integer', minimum: 1, maximum: 4294967295, description: 'An active program.' } },
} as const;

/** What a code at a program may look like, and whether it is active at once (the program's `code_rules` over the defaults). */
export const CODE_RULES_SCHEMA = {
  type: 'object',
  required: ['program_id', 'prefix', 'min_length', 'max_length', 'review'],
  properties: {
    program_id: { type: 'integer' },
    prefix: { type: 'string', description: 'Every code of the program starts with it (may be empty).' },
    min_length: { type: 'integer', description: 'Shortest code, prefix included.' },
    max_length: { type: 'integer', description: 'Longest code, prefix included.' },
    review: { type: 'string', enum: ['auto', 'operator'], description: 'auto: a requested code is active at once; operator: it waits for review.' },
  },
};

/** The code rules of an active program (no secret: the same for every publisher). */
export const getCodeRules = useCase(
  READ_CODES_POLICY,
  async function getCodeRules(deps: CodesDeps, _principal: Principal, input: InputOf<typeof CODE_RULES_INPUT>) {
    const program = await deps.data.programs.byId(input.program_id, { status: 1, code_rules: 1 });
    if (!program || program.status !== 'active')
      throw new ApiError({ code: 'not_found', detail: `Program ${input.program_id} does not exist or is not active.` });
    return { program_id: input.program_id, ...rulesOf(program.code_rules as Parameters<typeof rulesOf>[0]) };
  },
  CODE_RULES_INPUT,
);

const invalidCode = (detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter 'code': ${detail}.`, errors: [{ param: 'code', detail }] });

/** The caller's codes, newest first. */
export const listCodes = useCase(
  READ_CODES_POLICY,
  async function listCodes(deps: CodesDeps, principal: Principal, input: InputOf<typeof LIST_CODES_INPUT>) {
    const filter: Record<string, unknown> = { publisher_id: principal.publisher._id };
    if (input.program_id !== undefined) filter.program_id = input.program_id;
    if (input.status !== undefined) filter.status = input.status;
    const rows = await own(deps)
      .Code.find(filter)
      .sort({ created_at: -1, _id: 1 })
      .skip(skipFor(input.page, input.page_size))
      .limit(input.page_size + 1)
      .lean<CodeRow[]>();
    const page = pageOf(rows, input);
    return { ...page, data: page.data.map(codeView) };
  },
  LIST_CODES_INPUT,
);

/** Asks for a code at a program: 201 with the new code (`active` or `pending_review`), 200 when the caller holds that code there already. */
export const requestCode = useCase(
  WRITE_CODES_POLICY,
  async function requestCode(deps: CodesDeps, principal: Principal, input: InputOf<typeof REQUEST_CODE_INPUT>, now: Date = new Date()) {
    const publisherId = principal.publisher._id;
    const program = await deps.data.programs.byId(input.program_id, { merchant_id: 1, status: 1, code_rules: 1 });
    if (!program || program.status !== 'active')
      throw new ApiError({ code: 'not_found', detail: `Program ${input.program_id} does not exist or is not active.` });
    if (!(await deps.data.programs.approvedIds(publisherId)).includes(program._id))
      throw new ApiError({
        code: 'program_not_approved',
        detail: `Program ${program._id} is not approved for this account. Apply with POST /programs/apply/.`,
      });
    const rules = rulesOf(program.code_rules as Parameters<typeof rulesOf>[0]);
    let wanted: string | undefined;
    if (input.code !== undefined) {
      wanted = normaliseCode(input.code);
      const problem = codeProblem(wanted, rules);
      if (problem) throw invalidCode(problem);
      const held = await own(deps).Code.findOne({ merchant_id: program.merchant_id, key: wanted }).lean<CodeRow>();
      if (held && held.publisher_id === publisherId && held.program_id === program._id) return { created: false, code: codeView(held) };
    }
    const holding = await own(deps).Code.countDocuments({ publisher_id: publisherId, program_id: program._id, status: { $ne: 'rejected' } });
    if (holding >= MAX_CODES_PER_PROGRAM)
      throw new ApiError({ code: 'conflict', detail: `You hold ${MAX_CODES_PER_PROGRAM} codes at program ${program._id} already: use one of them.` });
    const status = rules.review === 'auto' ? ('active' as const) : ('pending_review' as const);
    // A made code that happens to be taken is made again; a wanted one is the caller's to change.
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = wanted ?? makeCode(rules);
      const row: CodeRow = {
        _id: `cod_${randomBytes(12).toString('base64url')}`,
        publisher_id: publisherId,
        program_id: program._id,
        merchant_id: program.merchant_id,
        code,
        key: code,
        status,
        created_at: now,
        updated_at: now,
      };
      try {
        await own(deps).Code.create(row);
        return { created: true, code: codeView(row) };
      } catch (e) {
        if ((e as { code?: number }).code !== 11000) throw e;
        if (wanted !== undefined) break;
      }
    }
    // Who holds it is nobody else's business: the same answer for every other holder.
    throw new ApiError({
      code: 'code_taken',
      detail: 'This code is taken at this merchant: choose another one.',
      errors: [{ param: 'code', detail: 'is taken at this merchant: choose another one' }],
    });
  },
  REQUEST_CODE_INPUT,
);
