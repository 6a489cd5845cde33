import { describe, expect, it } from 'vitest';
import { neutralizeFormula } from './delimited-response';

describe('neutralizeFormula', () => {
  it('prefixes a cell a spreadsheet would run with an apostrophe', () => {
    for (const v of ['=1+1', '+1', '-1+cmd', '@SUM(A1)', '\t=x', '\r=x', '-', '-2+3', '-1e5', '=HYPERLINK("http://x")'])
      expect(neutralizeFormula(v)).toBe(`'${v}`);
  });

  it('leaves plain text and plain numbers (a negative amount too) as they are', () => {
    for (const v of ['hello', '12.50', '-4.50', '-12', '0', '', 'a=b']) expect(neutralizeFormula(v)).toBe(v);
  });
});
