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
  // A value of a type its schema does not allow (the compiler throws) is written as JSON.stringify
  // writes it: never a 500 for an answer the handler built.
  const serialize = (value: unknown): string => {
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
