/**
 * What a personal coupon code may look like at a program: its rules (the program's `code_rules`,
 * else the defaults), how a typed code is normalised (so `spring10`, `SPRING10` and the
 * full-width `ＳＰＲＩＮＧ１０` are one code), the check of a wanted code and the making of one.
 */
import { randomInt } from 'node:crypto';

export interface CodeRules {
  /** Every code of the program starts with it (upper case letters and digits; may be empty). */
  prefix: string;
  /** Length of the whole code, prefix included. */
  min_length: number;
  max_length: number;
  /** `auto`: a requested code is active at once; `operator`: it waits for an operator's review. */
  review: 'auto' | 'operator';
}

/** A program without rules of its own: any code of 6 to 20 letters and digits, reviewed by an operator. */
export const DEFAULT_CODE_RULES: CodeRules = { prefix: '', min_length: 6, max_length: 20, review: 'operator' };

/** The alphabet of codes: letters and digits (what every checkout's coupon field takes). */
const CODE = /^[A-Z0-9]+$/;
/** Made codes leave out what reads alike (0/O, 1/I/L). */
const MADE = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** The program's rules over the defaults (a stored rule set may name only some). */
export function rulesOf(
  stored: { prefix?: string | null; min_length?: number | null; max_length?: number | null; review?: CodeRules['review'] | null } | null | undefined,
): CodeRules {
  const r = stored ?? {};
  const rules = {
    prefix: (r.prefix ?? DEFAULT_CODE_RULES.prefix).toUpperCase(),
    min_length: r.min_length ?? DEFAULT_CODE_RULES.min_length,
    max_length: r.max_length ?? DEFAULT_CODE_RULES.max_length,
    review: r.review ?? DEFAULT_CODE_RULES.review,
  };
  return { ...rules, min_length: Math.max(rules.min_length, rules.prefix.length + 1), max_length: Math.max(rules.max_length, rules.prefix.length + 1) };
}

/** A typed code as the platform keys it: NFKC, trimmed, upper case; '' for what can never be a code. */
export function normaliseCode(typed: string): string {
  if (typeof typed !== 'string' || typed.length > 100) return '';
  const code = typed.normalize('NFKC').trim().toUpperCase();
  return CODE.test(code) ? code : '';
}

/** Why a wanted code breaks the rules, or undefined when it keeps them. */
export function codeProblem(code: string, rules: CodeRules): string | undefined {
  if (!code) return 'must be letters and digits only';
  if (code.length < rules.min_length || code.length > rules.max_length) return `must be ${rules.min_length} to ${rules.max_length} characters long`;
  if (!code.startsWith(rules.prefix)) return `must start with ${rules.prefix}`;
  return undefined;
}

/** A new code under the rules: the prefix, then random letters and digits (8, within the length). */
export function makeCode(rules: CodeRules): string {
  const n = Math.min(rules.max_length, Math.max(rules.min_length, rules.prefix.length + 8)) - rules.prefix.length;
  let out = rules.prefix;
  for (let i = 0; i < n; i++) out += MADE[randomInt(MADE.length)];
  return out;
}
