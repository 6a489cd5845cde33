/**
 * The link builder's routing rules as data (apart from the section that edits them): the drafts'
 * request members, the problems the browser can tell before the call, and the API's problems
 * placed on the rule and field they name.
 */
import { isApiError } from '../api/client';
import type { LinkRoute } from '../api/catalog';

export interface RuleDraft {
  /** Stable across removals (React key, field ids). */
  key: number;
  countries: string;
  devices: string[];
  landing: string;
}

let nextKey = 1;
export const newRule = (): RuleDraft => ({ key: nextKey++, countries: '', devices: [], landing: '' });

const countriesOf = (text: string) =>
  text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((c) => c.toUpperCase());

/** The request's `routes` from the drafts (empty members left out). */
export function routesOf(rules: RuleDraft[]): LinkRoute[] {
  return rules.map((r) => {
    const countries = countriesOf(r.countries);
    return {
      ...(countries.length ? { countries } : {}),
      ...(r.devices.length ? { devices: r.devices as LinkRoute['devices'] } : {}),
      landing_url: r.landing.trim(),
    };
  });
}

/** Each rule's problems the browser can tell, by field name (`routes.{i}.{field}`). */
export function ruleProblems(rules: RuleDraft[]): Record<string, string> {
  const out: Record<string, string> = {};
  rules.forEach((r, i) => {
    const bad = countriesOf(r.countries).find((c) => !/^[A-Z]{2}$/.test(c));
    if (bad !== undefined) out[`routes.${i}.countries`] = `“${bad}” is not a two-letter country code (DE, FR, US …).`;
    if (!r.landing.trim()) out[`routes.${i}.landing_url`] = 'Enter the landing URL for visitors this rule matches.';
    else if (!/^https?:\/\/\S+$/i.test(r.landing.trim())) out[`routes.${i}.landing_url`] = 'Must start with http:// or https://.';
  });
  return out;
}

/** The API's problems with rules (`routes[1].landing_url` → `routes.1.landing_url`). */
export function ruleProblemsOf(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isApiError(err)) return out;
  for (const pe of err.errors) {
    const m = /^(?:body\.)?routes\[(\d+)\]\.(\w+)/.exec(pe.param);
    if (m) out[`routes.${m[1]}.${m[2]}`] ??= pe.detail.charAt(0).toUpperCase() + pe.detail.slice(1) + (pe.detail.endsWith('.') ? '' : '.');
  }
  return out;
}
