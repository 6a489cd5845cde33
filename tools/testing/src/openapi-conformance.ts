/** Whether a value holds to a schema of the platform's OpenAPI documents. */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: false }));
const validators = new WeakMap<object, ValidateFunction>();

/** A schema with a `$ref` to the document's components replaced by the component. */
export function resolvedSchema(
  doc: { components?: { schemas?: Record<string, Record<string, unknown>> } },
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  return ref ? (doc.components?.schemas?.[ref] ?? schema) : schema;
}

/** The schema violations of `value`, as text; undefined when it holds to `schema` (refs resolved first). */
export function schemaErrors(schema: Record<string, unknown>, value: unknown): string | undefined {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}
