/**
 * Form errors: from the build-time validators (the API's own JSON schemas) before a call, and from
 * the API's 400 `errors` after one. Both end as a message per field and a list for the summary.
 */
import { isApiError } from '../api/client';
import type { FormValidator, SchemaError } from '../generated/validators.js';

export interface FormErrors {
  /** field name -> message, shown under the field */
  fields: Record<string, string>;
  /** problems of the whole form (a refusal, a conflict), shown in the summary only */
  form: string[];
  request_id?: string | null;
}

const sentence = (s: string) => {
  const t = s.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
};

function fieldOf(e: SchemaError): string | null {
  if (e.keyword === 'required' && typeof e.params.missingProperty === 'string' && !e.instancePath) return e.params.missingProperty;
  const first = e.instancePath.split('/').filter(Boolean)[0];
  return first ?? null;
}

const PATTERN_MESSAGES: Record<string, string> = {
  '^https?://': 'Must start with http:// or https://.',
  '^[A-Z]{2}$': 'Choose a country (a two-letter code, like DE).',
};

/** Plain words for one schema error. */
export function messageOf(e: SchemaError): string {
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return 'Required.';
    case 'minLength':
      return p.limit === 1 ? 'Required.' : `At least ${String(p.limit)} characters.`;
    case 'maxLength':
      return `At most ${String(p.limit)} characters.`;
    case 'format':
      if (p.format === 'email') return 'Enter an e-mail address, like name@example.com.';
      if (p.format === 'uri') return 'Enter a full URL, like https://example.com.';
      return `Must be a valid ${String(p.format)}.`;
    case 'pattern':
      return PATTERN_MESSAGES[String(p.pattern)] ?? 'Has an invalid format.';
    case 'enum':
      return `Choose one of: ${(p.allowedValues as unknown[] | undefined)?.join(', ') ?? 'the options'}.`;
    case 'minItems':
      return p.limit === 1 ? 'Choose at least one.' : `Choose at least ${String(p.limit)}.`;
    case 'maxItems':
      return `Choose at most ${String(p.limit)}.`;
    case 'uniqueItems':
      return 'Choose each option once.';
    case 'minProperties':
      return 'Change at least one field.';
    case 'type':
      return `Must be ${String(p.type)}.`;
    default:
      return sentence(e.message ?? 'Is invalid');
  }
}

/** Runs a form's validator: null when valid, else the errors per field (first one per field). */
export function checkForm(validate: FormValidator, data: unknown): FormErrors | null {
  if (validate(data)) return null;
  const out: FormErrors = { fields: {}, form: [] };
  for (const e of validate.errors ?? []) {
    if (e.keyword === 'if') continue;
    const field = fieldOf(e);
    const message = messageOf(e);
    if (field && e.keyword !== 'additionalProperties') {
      out.fields[field] ??= message;
    } else if (!out.form.includes(message)) {
      out.form.push(message);
    }
  }
  if (!Object.keys(out.fields).length && !out.form.length) out.form.push('The form has a problem.');
  return out;
}

/** A failed call as form errors: the API's per-parameter errors on their fields, its detail otherwise. */
export function errorsFromFailure(err: unknown, fields: readonly string[]): FormErrors {
  if (!isApiError(err)) return { fields: {}, form: [err instanceof Error ? err.message : 'Something went wrong.'] };
  const out: FormErrors = { fields: {}, form: [], request_id: err.request_id };
  for (const pe of err.errors) {
    const field = pe.param.replace(/^body\./, '').split(/[.[]/)[0] ?? '';
    if (fields.includes(field)) out.fields[field] ??= sentence(pe.detail);
    else out.form.push(sentence(`${pe.param}: ${pe.detail}`));
  }
  if (!err.errors.length) out.form.push(err.detail);
  return out;
}
