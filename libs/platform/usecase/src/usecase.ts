import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { authorizeOnce, authorizeOperator, type OperatorPrincipal, type OperatorRole, type Policy, type Principal } from '@cw/auth';
import type { PlatformConfig } from '@cw/config';
import { bodyValidator, validatedAgainst } from '@cw/validation';

/**
 * What a use case may use: configuration and the handles of the domains whose data it reads (`D`,
 * e.g. `{ links: LinksData; programs: ProgramsData }`: each lib names the domains it uses, through
 * their packages, so the module boundaries govern data access too). No HTTP, no raw models of
 * another domain.
 */
export interface UseCaseDeps<D extends object = object> {
  config: PlatformConfig;
  data: D;
}

/** The input type a use case receives: its JSON schema after validation (defaults applied). */
export type InputOf<S extends JSONSchema> = FromSchema<S>;

/**
 * A use case bound to its policy and its input schema: calling it authorizes the caller under that
 * policy first (key kind, demo accounts, feed access), then validates its input (the first argument
 * after the principal) against the schema, then runs; so no surface can run it under another
 * policy, or none, or with input its schema refuses. The surfaces (HTTP routes, MCP tools,
 * `/Apiv3/json`) authenticate and spend the budget with the same `policy`, and shape their input
 * (strings coerced from a query, MCP's own members taken out) with the same `input`, read from the
 * use case, never named beside it.
 *
 * Once per call: a surface that must decide before the use case runs does, and the use case does
 * not do it again. HTTP routes and MCP tools authorize at their edge (`callerUnder`: a refusal
 * comes before the budget is spent, and the access cache decides with the policy), so the use
 * case bound to that very policy skips it (`authorizeOnce`); routes validate their query (strings
 * coerced to the schema's types, repeated and empty parameters) or body, and MCP tools their
 * arguments, against the use case's own `input`, so the use case skips the object that passed it
 * (`validatedAgainst`). Called any other way (`/Apiv3/json`, the CLI, the portal's own calls, a
 * spread or rebuilt input), it checks both itself.
 */
export type UseCase<D, A extends unknown[], Out> = ((deps: D, principal: Principal, ...args: A) => Promise<Out>) & {
  readonly policy: Policy;
  /** The input's JSON schema, when the use case takes one. */
  readonly input?: JSONSchema;
};

export function useCase<D, A extends unknown[], Out>(
  policy: Policy,
  run: (deps: D, principal: Principal, ...args: A) => Promise<Out>,
  input?: JSONSchema,
): UseCase<D, A, Out> {
  // Bound while modules load: a policy imported through a cycle would still be undefined here.
  if (!policy) throw new Error(`use case ${run.name || '(anonymous)'} has no policy (an import cycle?)`);
  const validate = input === undefined ? undefined : bodyValidator(input as Record<string, unknown>);
  const bound = async (deps: D, principal: Principal, ...args: A): Promise<Out> => {
    authorizeOnce(principal, policy);
    if (validate && !validatedAgainst(args[0], input as Record<string, unknown>)) validate(args[0]);
    return run(deps, principal, ...args);
  };
  return Object.assign(bound, { policy, input });
}

export type { JSONSchema };

/** An operator's use case: like `UseCase`, for an operator principal (its policy names the operator role it needs). */
export type OperatorUseCase<D, A extends unknown[], Out> = ((deps: D, operator: OperatorPrincipal, ...args: A) => Promise<Out>) & {
  readonly policy: Policy & { operator: OperatorRole };
  readonly input?: JSONSchema;
};

/**
 * A use case of the network's operators, bound to its operator role (`support` reads, `admin`
 * acts) and its input schema: calling it authorizes the operator first, so no surface (the admin
 * CLI, the portal's operator area) can run it for a publisher's credential, or for a support
 * operator when it needs an admin.
 */
export function operatorUseCase<D, A extends unknown[], Out>(
  role: OperatorRole,
  run: (deps: D, operator: OperatorPrincipal, ...args: A) => Promise<Out>,
  input?: JSONSchema,
): OperatorUseCase<D, A, Out> {
  const policy = { budget: 'portal', operator: role } as const satisfies Policy;
  const validate = input === undefined ? undefined : bodyValidator(input as Record<string, unknown>);
  const bound = async (deps: D, operator: OperatorPrincipal, ...args: A): Promise<Out> => {
    authorizeOperator(operator, policy);
    validate?.(args[0]);
    return run(deps, operator, ...args);
  };
  return Object.assign(bound, { policy, input });
}
