/**
 * One declaration per operation: what a use case answers over HTTP (method, path, operationId,
 * summary, its own answers and errors, how its result becomes the answer), declared once beside
 * the use case. The surfaces (the API key's, the portal session's) turn it into a RouteSpec:
 * their prefix, authentication and the standard error answers derived from the use case's policy.
 * docs/decisions/0071-one-declaration-per-operation.md
 */
import type { Context, Middleware } from 'koa';
import { principalOf, requirePolicy, type PolicyDeps, type Policy, type Principal } from '@cw/auth';
import type { UseCase } from '@cw/usecase';
import type { JsonSchema } from '@cw/validation';
import type { HttpMethod, ResponseSpec, RouteSpec } from './routes';

/** How a use case's result is answered: its status (default 200), its body, and a media type when it is not plain JSON. */
export interface Answer {
  status?: number;
  body: unknown;
  type?: string;
}

/** What a surface may say differently about the same operation (its own operationId, summary, description). */
export interface SurfaceWording {
  operationId?: string;
  summary?: string;
  description?: string;
  /** Its tags there (the portal files clicks under Activity). */
  tags?: string[];
  /** Answers documented on that surface only (the publisher API's 405 on products). */
  responses?: Record<number, ResponseSpec>;
}

/** The request an operation reads its use case's arguments from (validated: query and body against the use case's input). */
export interface OperationRequest {
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  params: Record<string, string>;
}

/**
 * An operation, as its lib declares it. `D` is what its use case needs (a surface's deps must
 * include it). Standard errors (400, 401, 403 from the policy, 409 of an Idempotency-Key, 429,
 * 503) are not listed here: the surface adds them.
 */
export interface Operation<D = never> {
  method: HttpMethod;
  /** Surface-relative, koa style (`/links`, `/inquiries/:id`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Where the use case's input is read (`query` or `body`, validated against the use case's `input`); none when it takes none. */
  input?: 'query' | 'body';
  /** The input's schema: the use case's own. */
  schema?: JsonSchema;
  pathParams?: Record<string, JsonSchema>;
  /** Its own answers: its 2xx and the errors only it gives (404 unknown program), by status. */
  responses: Record<number, ResponseSpec>;
  /** The use case's policy: the surface authenticates, authorizes and documents its 403 with it. */
  policy: Policy;
  /** A write under an optional Idempotency-Key (default: every method but GET). */
  idempotent: boolean;
  /** Runs the use case for the principal and shapes the answer. */
  answer: (deps: D, principal: Principal, request: OperationRequest) => Promise<Answer>;
  /** What a surface words differently (the portal's operationIds and summaries already published). */
  wording?: { apiKey?: SurfaceWording; portal?: SurfaceWording };
}

export interface OperationSpec<D, A extends unknown[], Out> extends Omit<Operation<D>, 'answer' | 'policy' | 'idempotent' | 'schema'> {
  useCase: UseCase<D, A, Out>;
  idempotent?: boolean;
  /** The use case's arguments after the principal (default: its input, the query or the body). */
  args?: (request: OperationRequest) => A;
  /** How its result becomes the answer (default: 200 with the result as the body). */
  result?: (out: Out) => Answer;
}

/** An operation over a use case: its input schema and policy are the use case's, never named beside it. */
export function operation<D, A extends unknown[], Out>(spec: OperationSpec<D, A, Out>): Operation<D> {
  const { useCase, args, result, idempotent, ...rest } = spec;
  if (rest.input && !useCase.input) throw new Error(`operation ${spec.operationId}: its use case takes no input`);
  const argsOf = args ?? ((r: OperationRequest) => (rest.input ? [r[rest.input]] : []) as unknown as A);
  const answerOf = result ?? ((out: Out): Answer => ({ body: out }));
  return {
    ...rest,
    schema: rest.input ? (useCase.input as JsonSchema) : undefined,
    policy: useCase.policy,
    idempotent: idempotent ?? spec.method !== 'GET',
    answer: async (deps, principal, request) => answerOf(await useCase(deps, principal, ...argsOf(request))),
  };
}

/** A refusal a surface documents: its error code, and when (`demo and read_only keys`). */
export interface Refusal {
  code: string;
  when?: string;
}

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** `code, code or code: when; when`, the documents' form of an error description (its example takes the first code). */
function described(refusals: Refusal[]): string {
  const codes = [...new Set(refusals.map((r) => r.code))];
  const whens = refusals.flatMap((r) => (r.when ? [r.when] : []));
  return whens.length ? `${list(codes)}: ${whens.join('; ')}` : list(codes);
}

/** An operation's own error description in that form, read back (`program_not_approved: the program has not approved the account`). */
function refusalsIn(description: string): Refusal[] | undefined {
  const m = /^([a-z_]+(?:, [a-z_]+)*(?: or [a-z_]+)?)(?:: (.*))?$/.exec(description);
  if (!m) return undefined;
  const codes = m[1]!.split(/, | or /);
  return codes.map((code, i) => ({ code, ...(i === codes.length - 1 && m[2] ? { when: m[2] } : {}) }));
}

/**
 * The 403 answers a policy gives on a surface: on the API key's, credential_not_allowed for the
 * key kinds it refuses (demo unless allowed) and demo accounts, feed_access_inactive, and
 * insufficient_scope under OAuth (a token without its scope, or any token when it names none);
 * on the portal's, role_not_allowed when it names roles, feed_access_inactive,
 * credential_not_allowed for demo accounts and reauthentication_required.
 */
export function forbiddenUnder(policy: Policy, surface: 'apiKey' | 'portal'): Refusal[] {
  const refusals: Refusal[] = [];
  if (surface === 'apiKey') {
    const kinds = [...(policy.allowDemo ? [] : ['demo']), ...(policy.refuseKinds ?? [])];
    const refused = [...(kinds.length ? [`${list(kinds)} keys`] : []), ...(policy.refuseDemoAccounts ? ['demo accounts'] : [])];
    if (refused.length) refusals.push({ code: 'credential_not_allowed', when: refused.join(', ') });
    if (policy.requireFeedAccess) refusals.push({ code: 'feed_access_inactive', when: 'the account’s product feed access is off' });
    refusals.push({ code: 'insufficient_scope', when: policy.scope ? `an OAuth access token without ${policy.scope}` : 'an OAuth access token' });
  } else {
    if (policy.roles) refusals.push({ code: 'role_not_allowed', when: `${list([...policy.roles])} only` });
    if (policy.requireFeedAccess) refusals.push({ code: 'feed_access_inactive', when: 'the account’s product feed access is off' });
    if (policy.refuseDemoAccounts) refusals.push({ code: 'credential_not_allowed', when: 'demo accounts' });
    if (policy.reauthenticate) refusals.push({ code: 'reauthentication_required', when: 'the password not given in the last minutes' });
  }
  return refusals;
}

function standardErrors(op: Operation<unknown>, surface: 'apiKey' | 'portal'): Record<number, ResponseSpec> {
  const forbidden = forbiddenUnder(op.policy, surface);
  if (surface === 'portal' && op.method !== 'GET') forbidden.push({ code: 'csrf_failed', when: 'no X-CSRF-Token or another Origin' });
  const own = op.responses[403] && refusalsIn(op.responses[403].description);
  if (own) forbidden.push(...own);
  const errors: Record<number, ResponseSpec> = {};
  if (op.input || op.pathParams || surface === 'portal') errors[400] = { description: 'Invalid parameter' };
  errors[401] = {
    description:
      surface === 'portal'
        ? 'not_authenticated: no session (or an API credential, which the portal does not take)'
        : 'not_authenticated: no credential, or an unknown, revoked or expired one',
  };
  // Only where the policy can refuse: a read every member of the account may make documents no 403.
  if (forbidden.length) errors[403] = { description: described(forbidden) };
  if (surface === 'portal') errors[404] = { description: 'Not a member of this account' };
  if (op.idempotent) errors[409] = { description: 'Idempotency-Key reused with another body, or in use' };
  errors[429] = { description: 'Rate limited' };
  errors[503] = { description: 'Unavailable' };
  return errors;
}

/** The operation's own answers over the surface's standard ones; where both describe a status, the two descriptions joined. */
function withStandard(standard: Record<number, ResponseSpec>, own: Record<number, ResponseSpec>): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = { ...standard };
  for (const [key, spec] of Object.entries(own)) {
    const status = Number(key);
    const base = standard[status];
    if (status === 403 && base && refusalsIn(spec.description)) continue; // already among the standard refusals
    out[status] = base ? { ...spec, description: `${base.description}, or ${spec.description.charAt(0).toLowerCase()}${spec.description.slice(1)}` } : spec;
  }
  return out;
}

function handlerOf<D>(deps: D, op: Operation<D>, principal: (ctx: Context) => Principal): RouteSpec['handler'] {
  return async (ctx, input) => {
    const a = await op.answer(deps, principal(ctx), { ...input, params: ctx.params as Record<string, string> });
    if (a.status !== undefined) ctx.status = a.status;
    if (a.type !== undefined) ctx.type = a.type;
    ctx.body = a.body;
  };
}

function input(op: Operation<unknown>): Pick<RouteSpec, 'query' | 'body'> {
  return op.input === 'query' ? { query: op.schema } : op.input === 'body' ? { body: op.schema } : {};
}

export interface ApiKeySurfaceOptions {
  /** The security schemes of the API key (the OpenAPI document's names). */
  security: string[];
  /** The Idempotency-Key of a write, under its route name (`POST /links`: one scope on every surface). */
  idempotent: (route: string) => Middleware;
}

/**
 * The API key surface (the publisher API): each operation at its own path, authenticated and
 * authorized by its policy (`requirePolicy`: API keys, and OAuth access tokens when the policy
 * names a scope), a write then under an optional Idempotency-Key.
 */
export function apiKeySurface<D extends PolicyDeps>(deps: D, opts: ApiKeySurfaceOptions): (op: Operation<D>) => RouteSpec {
  return (op) => ({
    method: op.method,
    path: op.path,
    operationId: op.wording?.apiKey?.operationId ?? op.operationId,
    summary: op.wording?.apiKey?.summary ?? op.summary,
    ...((op.wording?.apiKey?.description ?? op.description) ? { description: op.wording?.apiKey?.description ?? op.description } : {}),
    tags: op.wording?.apiKey?.tags ?? op.tags,
    security: opts.security,
    ...input(op as Operation<unknown>),
    ...(op.pathParams ? { pathParams: op.pathParams } : {}),
    before: [requirePolicy(deps, op.policy), ...(op.idempotent ? [opts.idempotent(`${op.method} ${op.path}`)] : [])],
    responses: withStandard(standardErrors(op as Operation<unknown>, 'apiKey'), { ...op.responses, ...op.wording?.apiKey?.responses }),
    handler: handlerOf(deps, op, principalOf),
  });
}

export interface PortalSurfaceOptions {
  /** A read's guard: the person's budget spent, their membership of `:account` checked (404 otherwise). */
  member: Middleware[];
  /** A write's guard: the member's, their role under the policy, then the Idempotency-Key under the route name. */
  write: (policy: Policy, route: string) => Middleware[];
  /** The principal the member guard set. */
  principal: (ctx: Context) => Principal;
  /** The `:account` path parameter. */
  account: JsonSchema;
}

/** The portal's operationId of an operation: `Account` after the verb (createLink: createAccountLink). */
export function portalOperationId(operationId: string): string {
  return operationId.replace(/^([a-z]+)/, '$1Account');
}

/**
 * The portal session surface: each operation under `/accounts/:account` for a signed-in member
 * of that account (the session, CSRF and Origin checks are the portal's, before every route).
 */
export function portalSurface<D>(deps: D, opts: PortalSurfaceOptions): (op: Operation<D>) => RouteSpec {
  return (op) => {
    const wording = op.wording?.portal;
    const description = wording?.description ?? op.description; // '' : none on this surface
    return {
      method: op.method,
      path: `/accounts/:account${op.path}`,
      operationId: wording?.operationId ?? portalOperationId(op.operationId),
      summary: wording?.summary ?? op.summary,
      ...(description ? { description } : {}),
      tags: wording?.tags ?? op.tags,
      pathParams: { account: opts.account, ...(op.pathParams ?? {}) },
      ...input(op as Operation<unknown>),
      before: op.idempotent ? opts.write(op.policy, `${op.method} ${op.path}`) : opts.member,
      responses: withStandard(standardErrors(op as Operation<unknown>, 'portal'), { ...op.responses, ...wording?.responses }),
      handler: handlerOf(deps, op, opts.principal),
    };
  };
}
