/**
 * Tool schemas as every MCP client can read them. The JSON schemas the HTTP routes validate with
 * are legal JSON Schema but not all portable: a `type` array (`["string", "null"]`) is refused or
 * flattened by clients that map tool schemas onto a single-type dialect (Gemini's function
 * declarations), and an object schema with no keyword at all accepts anything without saying so.
 * This rewrites both, meaning for meaning: each `type` array becomes `anyOf` branches of one type
 * each, and a constraint-free subschema becomes the boolean `true` it stands for (or is dropped
 * where it is `additionalProperties`). The MCP Inspector's portability lint finds nothing in the
 * result (checked with its CLI, `--strict`; README).
 */
type Schema = Record<string, unknown>;

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedProperties'];
/** What describes a value without constraining it. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
/** Keywords that apply to one type only: they go with that type's branch when a type array is split. */
const TYPE_KEYWORDS: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'propertyNames'],
};

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const constrains = (s: Schema) => Object.keys(s).some((k) => !ANNOTATIONS.has(k));

export function portableSchema(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.includes(k) && isSchema(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, portableSub(sub)]));
    else if (SCHEMA_LISTS.includes(k) && Array.isArray(v)) out[k] = v.map(portableSub);
    else if (SCHEMA_VALUES.includes(k)) {
      const sub = portableSub(v);
      if (!(k === 'additionalProperties' && sub === true)) out[k] = sub;
    } else out[k] = v;
  }
  if (!Array.isArray(out.type)) return out;
  // Split the type array: each branch carries its type's own keywords; the rest stays on top.
  const types = out.type as string[];
  const top: Schema = {};
  const moved = new Set(types.flatMap((t) => TYPE_KEYWORDS[t] ?? []));
  for (const [k, v] of Object.entries(out)) if (k !== 'type' && !moved.has(k)) top[k] = v;
  const branches = types.map((t) => Object.fromEntries([['type', t], ...(TYPE_KEYWORDS[t] ?? []).filter((k) => k in out).map((k) => [k, out[k]])]));
  return { ...top, anyOf: branches };
}

/** A subschema, `true` when it constrains nothing (then dropped where it is `additionalProperties`, the default). */
function portableSub(sub: unknown): unknown {
  const p = portableSchema(sub);
  return isSchema(p) && !constrains(p) ? true : p;
}

/**
 * What keeps a schema from being portable, by path: a `type` array, a subschema that constrains
 * nothing (or a bare boolean) where a schema is expected. The MCP Inspector's lint, in short.
 */
export function portabilityProblems(schema: unknown, path = '', keyword?: string): string[] {
  if (typeof schema === 'boolean') return keyword === 'additionalProperties' || keyword === 'unevaluatedProperties' ? [] : [`${path}: bare ${schema}`];
  if (!isSchema(schema)) return [];
  const problems: string[] = [];
  if (Array.isArray(schema.type)) problems.push(`${path}: type array`);
  if (!constrains(schema) && keyword !== 'not') problems.push(`${path}: constrains nothing`);
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.includes(k) && isSchema(v))
      for (const [name, sub] of Object.entries(v)) problems.push(...portabilityProblems(sub, `${path}.${k}.${name}`, k));
    else if (SCHEMA_LISTS.includes(k) && Array.isArray(v)) v.forEach((sub, i) => problems.push(...portabilityProblems(sub, `${path}.${k}[${i}]`, k)));
    else if (SCHEMA_VALUES.includes(k)) problems.push(...portabilityProblems(v, `${path}.${k}`, k));
  }
  return problems;
}
