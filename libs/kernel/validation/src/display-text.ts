/**
 * Text a person or an app sets and other people read (names of people, accounts, apps): no C0 or C1
 * control characters (NUL, newlines, escapes), no line or paragraph separators, and no bidirectional
 * controls (U+202A-U+202E overrides, U+2066-U+2069 isolates, the LRM/RLM/ALM marks), so a name can
 * neither break a mail header or a log line nor make a page read differently from what it stores.
 * A JSON-schema `pattern` (not a custom format), so the portal's forms compile the same rule.
 */
export const DISPLAY_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]*$';

const DISPLAY_TEXT = new RegExp(DISPLAY_TEXT_PATTERN, 'u');

/** What a 400 says of a value that breaks the rule. */
export const DISPLAY_TEXT_PROBLEM = 'must not contain control characters, line breaks or bidirectional text controls';

/** A string schema for such text, `maxLength` always bounded. */
export const displayText = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  ({
    type: 'string',
    minLength: opts.minLength ?? 1,
    maxLength: opts.maxLength,
    pattern: DISPLAY_TEXT_PATTERN,
    ...(opts.description ? { description: opts.description } : {}),
  }) as const;

/** Whether `s` keeps the rule (for values that do not come through a schema). */
export const isDisplayText = (s: string): boolean => DISPLAY_TEXT.test(s);

/** `s` made safe for a mail subject or a log line whatever it holds: every forbidden character dropped. */
// eslint-disable-next-line no-control-regex -- the control characters are what this removes
export const toDisplayText = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, '');
