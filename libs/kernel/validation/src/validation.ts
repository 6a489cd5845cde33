/**
 * ajv validation of query strings and JSON bodies, with the platform's error codes: unknown
 * parameters, repeated parameters, empty values and schema violations each answer 400 naming the
 * parameter. Query values are coerced to the schema's types (strings on the wire).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError, type ParamError } from '@cw/errors';
import { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_PROBLEM } from './display-text';

export type JsonSchema = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * `format: uri` as the platform reads URLs (WHATWG URL, as browsers do): RFC 3986's grammar would
 * refuse internationalized URLs the code has always taken. What else a URL must be (http(s),
 * allowed domains, a public host) is each field's own rule, in its description.
 */
function withPlatformFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
  // RFC 3339 allows a leap second (`23:59:60`); JavaScript's Date does not, and an Invalid Date
  // reaching a query or a write was a 500. A date-time is one both RFC 3339 and Date read.
  const rfc3339 = ajv.formats['date-time'] as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => rfc3339.validate(s) && Number.isFinite(Date.parse(s)), compare: rfc3339.compare });
  return ajv;
}
const queryAjv = withPlatformFormats(new Ajv({ coerceTypes: true, allErrors: true, useDefaults: true, strict: false }));
const bodyAjv = withPlatformFormats(new Ajv({ coerceTypes: false, allErrors: true, useDefaults: true, strict: false }));

function paramOf(e: ErrorObject, root: string): string {
  if (e.keyword === 'additionalProperties') return joinPath(e.instancePath, String((e.params as { additionalProperty: string }).additionalProperty), root);
  if (e.keyword === 'required') return joinPath(e.instancePath, String((e.params as { missingProperty: string }).missingProperty), root);
  return joinPath(e.instancePath, '', root) || root;
}

function joinPath(instancePath: string, leaf: string, _root: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (leaf) parts.push(leaf);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p)).join('');
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known parameter';
    case 'enum':
      return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'pattern':
      return (e.params as { pattern: string }).pattern === DISPLAY_TEXT_PATTERN ? DISPLAY_TEXT_PROBLEM : (e.message ?? 'is invalid');
    default:
      return e.message ?? 'is invalid';
  }
}

function validationError(errs: ErrorObject[], root: string, where: 'query' | 'body'): ApiError {
  const seen = new Set<string>();
  const list: ParamError[] = [];
  let unknownOnly = true;
  for (const e of errs) {
    if (e.keyword === 'if') continue;
    const param = paramOf(e, root);
    const detail = describe(e);
    if (seen.has(`${param}:${detail}`)) continue;
    seen.add(`${param}:${detail}`);
    list.push({ param, detail });
    if (e.keyword !== 'additionalProperties') unknownOnly = false;
  }
  const first = list[0] ?? { param: where, detail: 'is invalid' };
  const code = unknownOnly ? 'unknown_parameter' : 'invalid_parameter';
  const noun = where === 'query' ? 'parameter' : 'field';
  return new ApiError({ code, detail: `Invalid ${noun} '${first.param}': ${first.detail}.`, errors: list });
}

/**
 * The spec spells the sub-ID `subid` in some places and `sub_id` in others; every query and body
 * takes both: the spelling a schema does not declare is read as the one it does. Both at once is 400.
 */
const SPELLINGS: ReadonlyArray<[string, string]> = [
  ['sub_id', 'subid'],
  ['subid', 'sub_id'],
];

function unifySpellings(input: Record<string, unknown>, props: Record<string, unknown>): void {
  for (const [given, declared] of SPELLINGS) {
    if (!(given in input) || given in props || !(declared in props)) continue;
    if (declared in input) {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter '${given}': '${given}' and '${declared}' are the same parameter; give one.`,
        errors: [{ param: given, detail: `is the same parameter as '${declared}'` }],
      });
    }
    input[declared] = input[given];
    delete input[given];
  }
}

/**
 * The values this module's validators returned, each with the schema it passed (the object the
 * validator was compiled from). A value is checked once per call: a use case handed the very
 * object its surface validated against the use case's own schema does not check it again
 * (`validatedAgainst`). A value built afterwards (a spread, a copy) is a new object and is checked.
 */
const passed = new WeakMap<object, JsonSchema>();

/** True when `value` is what a validator compiled from `schema` returned (it passed that schema). */
export function validatedAgainst(value: unknown, schema: JsonSchema): boolean {
  return typeof value === 'object' && value !== null && passed.get(value) === schema;
}

export interface QueryValidator<T> {
  (raw: Record<string, string | string[] | undefined>): T;
  schema: JsonSchema;
}

/** Compiles a query schema (type object, properties, additionalProperties false). */
export function queryValidator<T = Record<string, unknown>>(schema: JsonSchema): QueryValidator<T> {
  const validate: ValidateFunction = queryAjv.compile({ type: 'object', additionalProperties: false, ...schema });
  const fn = ((raw: Record<string, string | string[] | undefined>) => {
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (Array.isArray(v)) {
        throw new ApiError({ code: 'repeated_parameter', detail: `Parameter '${k}' may be given only once.`, errors: [{ param: k, detail: 'is repeated' }] });
      }
      if (v === '' && k in props) {
        throw new ApiError({
          code: 'invalid_parameter',
          detail: `Invalid parameter '${k}': must not be empty.`,
          errors: [{ param: k, detail: 'must not be empty' }],
        });
      }
      out[k] = v;
    }
    unifySpellings(out, props);
    if (!validate(out)) throw validationError(validate.errors ?? [], '', 'query');
    passed.set(out, schema);
    return out as T;
  }) as QueryValidator<T>;
  fn.schema = schema;
  return fn;
}

export interface BodyValidator<T> {
  (body: unknown): T;
  schema: JsonSchema;
}

export function bodyValidator<T = Record<string, unknown>>(schema: JsonSchema): BodyValidator<T> {
  const validate: ValidateFunction = bodyAjv.compile(schema);
  const fn = ((body: unknown) => {
    const value = body ?? {};
    if (value && typeof value === 'object' && !Array.isArray(value))
      unifySpellings(value as Record<string, unknown>, (schema.properties ?? {}) as Record<string, unknown>);
    if (!validate(value)) throw validationError(validate.errors ?? [], 'body', 'body');
    if (typeof value === 'object' && value !== null) passed.set(value, schema);
    return value as T;
  }) as BodyValidator<T>;
  fn.schema = schema;
  return fn;
}
