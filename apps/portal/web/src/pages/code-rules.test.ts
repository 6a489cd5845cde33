import { describe, expect, it } from 'vitest';
import type { CodeRules } from '../api/codes';
import { rulesInWords } from './code-rules';

const rules = (r: Pick<CodeRules, 'min_length' | 'max_length' | 'prefix' | 'review'>) => r as CodeRules;

describe('a program’s coupon code rules in words', () => {
  it('says the length, the prefix and whether a code works at once', () => {
    expect(rulesInWords(rules({ min_length: 4, max_length: 12, prefix: 'ACME', review: 'auto' }))).toBe(
      '4 to 12 letters and digits, starting with ACME. Active at once.',
    );
    expect(rulesInWords(rules({ min_length: 6, max_length: 20, prefix: '', review: 'operator' }))).toBe(
      '6 to 20 letters and digits. Reviewed by the network before it credits sales.',
    );
  });
});
