/**
 * The link builder's "Routing" section (smart links, docs/decisions/0062-smart-link-routes.md):
 * rules tried in order, each a set of countries and devices and the landing URL a matching
 * visitor gets; added and removed with named buttons. Each rule's problems (the browser's checks
 * and the API's, which names `routes[i].landing_url`) show beside that rule's fields.
 */
import { ChoiceGroup, TextField, type FormState } from '../components/form';
import { newRule, type RuleDraft } from './link-routing-rules';

export const MAX_RULES = 10;
const DEVICES = [
  { value: 'ios', label: 'iPhone and iPad' },
  { value: 'android', label: 'Android' },
  { value: 'desktop', label: 'Desktop and other' },
] as const;

export function RoutingRules({
  form,
  rules,
  onChange,
  problems,
}: {
  form: FormState;
  rules: RuleDraft[];
  onChange: (rules: RuleDraft[]) => void;
  problems: Record<string, string>;
}) {
  // The rules' fields show their own problems (the form's field names stop at `routes`).
  const ruleForm: FormState = { ...form, error: (name) => problems[name] };
  const set = (key: number, patch: Partial<RuleDraft>) => onChange(rules.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const remove = (key: number) => {
    const at = rules.findIndex((r) => r.key === key);
    onChange(rules.filter((r) => r.key !== key));
    // Focus stays in the section: the next rule's first field, else the add button.
    window.setTimeout(() => {
      const next = rules[at + 1] ?? rules[at - 1];
      document.getElementById(next ? form.fieldId(`routes.${next.key}.countries`) : `${form.id}-add-rule`)?.focus();
    }, 0);
  };
  const add = () => {
    const rule = newRule();
    onChange([...rules, rule]);
    window.setTimeout(() => document.getElementById(form.fieldId(`routes.${rule.key}.countries`))?.focus(), 0);
  };
  return (
    <fieldset className="field routing" id={form.fieldId('routes')} tabIndex={-1} aria-describedby={`${form.id}-routing-hint`}>
      <legend>Routing</legend>
      <p className="hint" id={`${form.id}-routing-hint`}>
        Optional: send visitors from some countries or devices to another page of the program. Rules are tried in order; the first that matches answers,
        everyone else gets the landing URL above. At most {MAX_RULES} rules.
      </p>
      {rules.map((r, i) => {
        // Field ids by the rule's key (stable while rules are removed); problems by its position (as the API names them).
        const f: FormState = { ...ruleForm, fieldId: (name) => form.fieldId(name.replace(/^routes\.\d+\./, `routes.${r.key}.`)) };
        return (
          <fieldset key={r.key} className="routing-rule">
            <legend>Rule {i + 1}</legend>
            <TextField
              form={f}
              name={`routes.${i}.countries`}
              label="Countries"
              optional
              hint="Two-letter codes separated by commas (DE, AT). Empty: every country."
              value={r.countries}
              onChange={(v) => set(r.key, { countries: v })}
              autoComplete="off"
            />
            <ChoiceGroup
              form={f}
              name={`routes.${i}.devices`}
              legend="Devices"
              hint="None chosen: every device."
              type="checkbox"
              options={DEVICES}
              values={r.devices}
              onChange={(v) => set(r.key, { devices: v })}
            />
            <TextField
              form={f}
              name={`routes.${i}.landing_url`}
              label="Landing URL"
              type="url"
              value={r.landing}
              onChange={(v) => set(r.key, { landing: v })}
            />
            <button type="button" className="button button-secondary" onClick={() => remove(r.key)}>
              Remove rule {i + 1}
            </button>
          </fieldset>
        );
      })}
      <button type="button" id={`${form.id}-add-rule`} className="button button-secondary" onClick={add} disabled={rules.length >= MAX_RULES}>
        Add a routing rule
      </button>
    </fieldset>
  );
}
