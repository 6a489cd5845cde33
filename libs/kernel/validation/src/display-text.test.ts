import { describe, expect, it } from 'vitest';
import { bodyValidator } from './validation';
import { displayText, isDisplayText, toDisplayText } from './display-text';

describe('display text (names people and apps set)', () => {
  it.each([
    ['NUL', 'Trail\u0000Notes'],
    ['a newline', 'Trail\nNotes'],
    ['a carriage return', 'Trail\rNotes'],
    ['an escape', 'Trail\u001b[31mNotes'],
    ['a C1 control', 'Trail\u0085Notes'],
    ['a right-to-left override', 'Trail \u202eseton'],
    ['a left-to-right isolate', 'Trail \u2066Notes\u2069'],
    ['a right-to-left mark', 'Trail\u200fNotes'],
    ['a line separator', 'Trail\u2028Notes'],
  ])('refuses %s with a 400 naming the field', (_what, name) => {
    const check = bodyValidator({ type: 'object', properties: { name: displayText({ maxLength: 100 }) } });
    expect(isDisplayText(name)).toBe(false);
    expect(() => check({ name })).toThrow(
      expect.objectContaining({ code: 'invalid_parameter', errors: [{ param: 'name', detail: expect.stringContaining('control characters') }] }),
    );
  });

  it('keeps names in any script, with accents, emoji and joiners', () => {
    for (const name of ['Trail Notes', 'Zoë & Søren', 'مراجعات', '東京レビュー', 'Family 👨‍👩‍👧 Reviews']) {
      expect(isDisplayText(name)).toBe(true);
      expect(toDisplayText(name)).toBe(name);
    }
  });

  it('drops every forbidden character from text that did not come through a schema', () => {
    expect(toDisplayText('Urgent\r\nBcc: x@evil.example \u202eevil')).toBe('UrgentBcc: x@evil.example evil');
  });
});
