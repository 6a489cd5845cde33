import { describe, expect, it } from 'vitest';
import { checkDigit, gtinProblem, MAX_GTINS, parseGtins } from './gtin';

describe('a GTIN', () => {
  it('is taken with its GS1 check digit at 8, 12, 13 or 14 digits, leading zeroes kept', () => {
    expect(checkDigit('400638133393')).toBe(1);
    expect(gtinProblem('4006381333931')).toBeNull(); // EAN-13
    expect(gtinProblem('96385074')).toBeNull(); // EAN-8
    expect(gtinProblem('036000291452')).toBeNull(); // UPC-A
    expect(gtinProblem('00036000291452')).toBeNull(); // GTIN-14
  });

  it('names the digit the check expects when the last one is wrong', () => {
    expect(gtinProblem('4006381333932')).toBe('has a wrong check digit (the last digit should be 1)');
  });

  it('says how many digits it has when that is not a GTIN’s length', () => {
    expect(gtinProblem('1234567')).toBe('has 7 digits; a GTIN has 8, 12, 13 or 14');
  });

  it('refuses anything but digits', () => {
    expect(gtinProblem('40063813339-1')).toBe('has characters other than digits');
    expect(gtinProblem('ABCDEFGH')).toBe('has characters other than digits');
  });
});

describe('GTINs pasted in the box', () => {
  it('reads them one per line or separated by commas, semicolons or spaces, each once, in order', () => {
    const r = parseGtins('4006381333931, 96385074\r\n036000291452;4006381333931\n\n  00036000291452  ');
    expect(r.gtins).toEqual(['4006381333931', '96385074', '036000291452', '00036000291452']);
    expect(r.problems).toEqual([]);
  });

  it('gives one message per refused value, naming its line', () => {
    const r = parseGtins('4006381333931\n4006381333932 abc\n1234567');
    expect(r.gtins).toEqual(['4006381333931']);
    expect(r.problems).toEqual([
      { line: 2, value: '4006381333932', message: '“4006381333932” has a wrong check digit (the last digit should be 1).' },
      { line: 2, value: 'abc', message: '“abc” has characters other than digits.' },
      { line: 3, value: '1234567', message: '“1234567” has 7 digits; a GTIN has 8, 12, 13 or 14.' },
    ]);
  });

  it('says when there are more than one look-up takes', () => {
    const many = Array.from({ length: MAX_GTINS + 1 }, (_, i) => {
      const body = String(10_000_000_000 + i).padStart(12, '0');
      return body + checkDigit(body);
    });
    const r = parseGtins(many.join('\n'));
    expect(r.gtins).toHaveLength(101);
    expect(r.problems).toEqual([{ line: 0, value: '', message: '101 GTINs: look up at most 100 at once.' }]);
    expect(parseGtins(many.slice(0, MAX_GTINS).join(' ')).problems).toEqual([]);
  });
});
