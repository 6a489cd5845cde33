/**
 * Form pieces: every input has a <label>, its hint and error tied with aria-describedby, its state
 * with aria-invalid; a summary at the top of the form lists the problems after a submit (focused,
 * role=alert), each a link to its field.
 */
import { useCallback, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { FormValidator } from '../generated/validators.js';
import { checkForm, errorsFromFailure, type FormErrors } from '../lib/validation';
import { RequestId } from './feedback';

export interface FormState {
  id: string;
  errors: FormErrors | null;
  labels: Record<string, string>;
  fieldId(name: string): string;
  error(name: string): string | undefined;
  /**
   * Validates with the form's schema: true when valid, else shows the errors. The schema is the
   * API's own input schema, so a valid `data` is the request body `T` (the generated type).
   */
  check<T = unknown>(data: unknown): data is T;
  /** Shows a failed call's errors (per field and in the summary). */
  fail(err: unknown): void;
  clear(): void;
  summaryRef: React.RefObject<HTMLDivElement | null>;
}

/** A form's errors; `labels` names the fields in the summary (and lists the fields the API may name). */
export function useFormState(validate: FormValidator | null, labels: Record<string, string>): FormState {
  const id = useId();
  const [errors, setErrors] = useState<FormErrors | null>(null);
  const summaryRef = useRef<HTMLDivElement | null>(null);
  const show = useCallback((e: FormErrors | null) => {
    setErrors(e);
    if (e) window.setTimeout(() => summaryRef.current?.focus(), 0);
  }, []);
  return {
    id,
    errors,
    labels,
    summaryRef,
    fieldId: (name) => `${id}-${name}`,
    error: (name) => errors?.fields[name],
    check<T>(data: unknown): data is T {
      const e = validate ? checkForm(validate, data) : null;
      show(e);
      return !e;
    },
    fail: (err) => show(errorsFromFailure(err, Object.keys(labels))),
    clear: () => setErrors(null),
  };
}

export function Form({
  form,
  onSubmit,
  pending,
  children,
  className,
  label,
}: {
  form: FormState;
  onSubmit: () => void;
  /** While the call runs, a second submit does nothing. */
  pending?: boolean;
  children: ReactNode;
  className?: string;
  label?: string;
}) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!pending) onSubmit();
  };
  return (
    <form noValidate onSubmit={submit} className={className ?? 'form'} aria-label={label}>
      <ErrorSummary form={form} />
      {children}
    </form>
  );
}

export function ErrorSummary({ form }: { form: FormState }) {
  const e = form.errors;
  const fieldNames = e ? Object.keys(e.fields) : [];
  const count = fieldNames.length + (e?.form.length ?? 0);
  return (
    <div ref={form.summaryRef} tabIndex={-1} role="alert" className={count ? 'error-summary' : 'error-summary-empty'}>
      {e && count > 0 && (
        <>
          <p className="notice-title">{count === 1 ? 'There is a problem' : `There are ${count} problems`}</p>
          <ul>
            {e.form.map((m) => (
              <li key={m}>{m}</li>
            ))}
            {fieldNames.map((name) => (
              <li key={name}>
                <a
                  href={`#${form.fieldId(name)}`}
                  onClick={(ev) => {
                    ev.preventDefault();
                    document.getElementById(form.fieldId(name))?.focus();
                  }}
                >
                  {form.labels[name] ?? name}: {e.fields[name]}
                </a>
              </li>
            ))}
          </ul>
          <RequestId id={e.request_id} />
        </>
      )}
    </div>
  );
}

function describedBy(...ids: Array<string | false | undefined>): string | undefined {
  const list = ids.filter(Boolean).join(' ');
  return list || undefined;
}

interface FieldBase {
  form: FormState;
  name: string;
  label?: string;
  hint?: ReactNode;
  optional?: boolean;
}

function FieldShell({ form, name, label, hint, optional, children }: FieldBase & { children: ReactNode }) {
  const id = form.fieldId(name);
  const error = form.error(name);
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>
        {label ?? form.labels[name]}
        {optional && <span className="optional"> (optional)</span>}
      </label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          <span className="visually-hidden">Error: </span>
          {error}
        </p>
      )}
    </div>
  );
}

type InputProps = Omit<React.InputHTMLAttributes<HTMLInputElement>, 'form' | 'name' | 'onChange' | 'value'>;

export function TextField({
  form,
  name,
  label,
  hint,
  optional,
  value,
  onChange,
  inputRef,
  ...rest
}: FieldBase & InputProps & { value: string; onChange: (v: string) => void; inputRef?: React.Ref<HTMLInputElement> }) {
  const id = form.fieldId(name);
  const error = form.error(name);
  return (
    <FieldShell form={form} name={name} label={label} hint={hint} optional={optional}>
      <input
        {...rest}
        ref={inputRef}
        id={id}
        name={name}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        required={!optional}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(hint !== undefined && `${id}-hint`, error && `${id}-error`)}
      />
    </FieldShell>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField({
  form,
  name,
  label,
  hint,
  optional,
  value,
  onChange,
  options,
  disabled,
}: FieldBase & { value: string; onChange: (v: string) => void; options: readonly Option[]; disabled?: boolean }) {
  const id = form.fieldId(name);
  const error = form.error(name);
  return (
    <FieldShell form={form} name={name} label={label} hint={hint} optional={optional}>
      <select
        id={id}
        name={name}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(hint !== undefined && `${id}-hint`, error && `${id}-error`)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

/** Checkboxes (several values) or radios (one) in a fieldset with a legend. */
export function ChoiceGroup({
  form,
  name,
  legend,
  hint,
  options,
  type,
  values,
  onChange,
}: {
  form: FormState;
  name: string;
  legend?: string;
  hint?: ReactNode;
  options: readonly Option[];
  type: 'checkbox' | 'radio';
  values: readonly string[];
  onChange: (values: string[]) => void;
}) {
  const id = form.fieldId(name);
  const error = form.error(name);
  const toggle = (v: string, on: boolean) => {
    if (type === 'radio') onChange([v]);
    else onChange(on ? options.map((o) => o.value).filter((o) => o === v || values.includes(o)) : values.filter((x) => x !== v));
  };
  return (
    <fieldset
      className={`field choices${error ? ' field-invalid' : ''}`}
      aria-describedby={describedBy(hint !== undefined && `${id}-hint`, error && `${id}-error`)}
      aria-invalid={error ? true : undefined}
    >
      <legend>{legend ?? form.labels[name]}</legend>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <div className="choice-list">
        {options.map((o, i) => (
          <label key={o.value} className="choice">
            <input
              type={type}
              id={i === 0 ? id : undefined}
              name={name}
              value={o.value}
              checked={values.includes(o.value)}
              onChange={(e) => toggle(o.value, e.target.checked)}
            />
            <span>{o.label}</span>
          </label>
        ))}
      </div>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          <span className="visually-hidden">Error: </span>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** A labelled on/off switch (a checkbox underneath: keyboard and screen readers as usual). */
export function Toggle({
  form,
  name,
  label,
  hint,
  checked,
  onChange,
}: {
  form: FormState;
  name: string;
  label: string;
  hint?: ReactNode;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  const id = form.fieldId(name);
  return (
    <div className="field toggle-field">
      <label className="toggle" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          role="switch"
          name={name}
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          aria-describedby={hint ? `${id}-hint` : undefined}
        />
        <span className="toggle-track" aria-hidden="true" />
        <span>{label}</span>
      </label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** The form's submit button: keeps its name and focus while the call runs (aria-disabled, the form ignores a second submit). */
export function SubmitButton({ pending, children, className }: { pending: boolean; children: ReactNode; className?: string }) {
  return (
    <button type="submit" className={className ?? 'button button-primary'} aria-disabled={pending || undefined} data-pending={pending || undefined}>
      {children}
      {pending && <span className="spinner" aria-hidden="true" />}
    </button>
  );
}
