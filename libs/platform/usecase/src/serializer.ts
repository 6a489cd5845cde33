/**
 * One serializer per response schema (docs/decisions/0044-one-serializer-per-response.md): the
 * schema an answer is documented with compiles, once, into the function that writes its JSON, and
 * every surface that answers with that schema (an HTTP route, the MCP tool over the same use case,
 * a cache of the answer's bytes) writes through that one function.
 *
 * Compiled with fast-json-stringify: a property the schema does not declare is not written (the
 * schema is the contract, so an undeclared field cannot leak), properties come in the schema's
 * order, dates as ISO strings. An object the schema leaves free (no `properties`) keeps every
 * member, as JSON.stringify writes it. A schema that branches (`oneOf`, `anyOf`, `allOf`, `not`,
 * `if`) or refers elsewhere (`$ref`, `patternProperties`) is too loose to compile safely: its
 * answers are written by JSON.stringify (`compiled` false), as is a value of a type its schema
 * does not allow.
 *
 * Strict mode (`CW_STRICT_RESPONSES=1`, set for every test run by vitest.config.ts): a value that
 * carries a member its schema does not declare is refused (`UndeclaredFieldError`, a 500) instead
 * of losing the member in silence, so a field added to a view but not to its schema fails a test
 * rather than vanishing from the answer (issue 65). Production writes the schema's members only.
 */
import fastJson from 'fast-json-stringify';

export type Serializer = ((value: unknown) => string) & {
  /** false: the schema was too loose to compile and JSON.stringify writes its answers. */
  readonly compiled: boolean;
};

const LOOSE = ['oneOf', 'anyOf', 'allOf', 'not', 'if', '$ref', 'patternProperties'];

/**
 * Not read by the compiler: documentation, and `required` (a member the value lacks is left out, as
 * JSON.stringify leaves it, rather than failing the answer). `null` is allowed for every type: a
 * null is written as null, never as the compiler's "" or 0 for a type that does not allow it.
 */
const DROPPED = new Set(['description', 'example', 'examples', 'title', 'required', 'default']);

const byStringify: Serializer = Object.assign((value: unknown) => JSON.stringify(value), { compiled: false });

const compiledFor = new WeakMap<object, Serializer>();

/** A member of an answer that its response schema does not declare (strict mode only). */
export class UndeclaredFieldError extends Error {
  constructor(readonly path: string) {
    super(`The answer carries "${path}", which its response schema does not declare: add it to the schema or leave it out of the view.`);
    this.name = 'UndeclaredFieldError';
  }
}

/** Whether answers are checked against their schemas (read per compile, so a test can set it first). */
const strictResponses = (): boolean => process.env.CW_STRICT_RESPONSES === '1';

/** The schema's serializer, compiled on the first call for that schema object and shared after. */
export function serializerFor(schema: object): Serializer {
  let serializer = compiledFor.get(schema);
  if (serializer === undefined) {
    serializer = compile(schema);
    compiledFor.set(schema, serializer);
  }
  return serializer;
}

function compile(schema: object): Serializer {
  const prepared = prepare(schema);
  if (prepared === undefined) return byStringify;
  const write = fastJson(prepared as Parameters<typeof fastJson>[0]);
  const strict = strictResponses();
  // A value of a type its schema does not allow (the compiler throws) is written as JSON.stringify
  // writes it: never a 500 for an answer the handler built.
  const serialize = (value: unknown): string => {
    if (strict) {
      const path = undeclaredMember(prepared, value, '$');
      if (path !== undefined) throw new UndeclaredFieldError(path);
    }
    try {
      return write(value);
    } catch {
      return JSON.stringify(value);
    }
  };
  return Object.assign(serialize, { compiled: true });
}

/**
 * A copy the compiler reads as we mean it, or undefined when it is too loose: a free object (no
 * `properties`) is written whole (the compiler would write `{}`); see DROPPED.
 */
function prepare(node: unknown): unknown {
  if (Array.isArray(node)) {
    const items = node.map(prepare);
    return items.includes(undefined) ? undefined : items;
  }
  if (node === null || typeof node !== 'object') return node;
  const schema = node as Record<string, unknown>;
  if (LOOSE.some((k) => k in schema)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (DROPPED.has(k) || k.startsWith('x-')) continue;
    if (k === 'properties') {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(v as Record<string, unknown>)) {
        const p = prepare(sub);
        if (p === undefined) return undefined;
        props[name] = p;
      }
      out[k] = props;
    } else if (k === 'items' || k === 'additionalProperties') {
      const p = typeof v === 'boolean' ? v : prepare(v);
      if (p === undefined) return undefined;
      out[k] = p;
    } else out[k] = v;
  }
  const types = out.type === undefined ? [] : Array.isArray(out.type) ? (out.type as string[]) : [out.type as string];
  if (types.includes('object') && out.properties === undefined && out.additionalProperties === undefined) out.additionalProperties = true;
  if (types.length && !types.includes('null')) out.type = [...types, 'null'];
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * The path of the first member of `value` that the prepared schema would not write, or undefined.
 * Only plain objects and arrays are walked (a Date, a Decimal128 or a Buffer is a leaf the
 * compiler formats); a member whose value is undefined is not written by JSON.stringify either.
 */
function undeclaredMember(schema: unknown, value: unknown, path: string): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(value)) {
    const items = s.items;
    if (items === undefined || typeof items === 'boolean') return undefined;
    for (let i = 0; i < value.length; i++) {
      const found = undeclaredMember(items, value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const extra = s.additionalProperties;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const sub = Object.prototype.hasOwnProperty.call(props, k) ? props[k] : extra;
    if (sub === undefined || sub === false) return `${path}.${k}`;
    const found = undeclaredMember(sub, v, `${path}.${k}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
