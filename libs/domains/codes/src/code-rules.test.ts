import { describe, expect, it } from 'vitest';
import { codeProblem, DEFAULT_CODE_RULES, makeCode, normaliseCode, rulesOf } from './code-rules';

describe('personal coupon codes', () => {
  it('are one code whatever the case, width or spaces around them', () => {
    expect(normaliseCode('spring10')).toBe('SPRING10');
    expect(normaliseCode('  Spring10 ')).toBe('SPRING10');
    expect(normaliseCode('ＳＰＲＩＮＧ１０')).toBe('SPRING10');
  });

  it('are letters and digits only: anything else never matches a code', () => {
    for (const bad of ['', '   ', 'spring 10', 'spring-10', 'spr$ng', 'x'.repeat(101), 'été10', 'spring\u000010']) expect(normaliseCode(bad), bad).toBe('');
  });

  it("keep the program's prefix and length", () => {
    const rules = rulesOf({ prefix: 'tr', min_length: 6, max_length: 10 });
    expect(rules).toEqual({ prefix: 'TR', min_length: 6, max_length: 10, review: 'operator' });
    expect(codeProblem('TRAIL1', rules)).toBeUndefined();
    expect(codeProblem('TRAIL', rules)).toBe('must be 6 to 10 characters long');
    expect(codeProblem('TRAILRUNNER1', rules)).toBe('must be 6 to 10 characters long');
    expect(codeProblem('SUMMIT', rules)).toBe('must start with TR');
    expect(codeProblem('', rules)).toBe('must be letters and digits only');
  });

  it('follow the defaults when the program has no rules: 6 to 20 characters, reviewed by an operator', () => {
    expect(rulesOf(null)).toEqual(DEFAULT_CODE_RULES);
    expect(rulesOf({ review: 'auto' })).toEqual({ ...DEFAULT_CODE_RULES, review: 'auto' });
  });

  it('are made under the rules, without characters that read alike', () => {
    const rules = rulesOf({ prefix: 'TR', min_length: 6, max_length: 12 });
    for (let i = 0; i < 200; i++) {
      const c = makeCode(rules);
      expect(codeProblem(c, rules)).toBeUndefined();
      expect(normaliseCode(c)).toBe(c);
      expect(c.slice(2)).not.toMatch(/[01OIL]/);
    }
    expect(makeCode(rulesOf({ min_length: 6, max_length: 6 }))).toHaveLength(6);
  });
});
