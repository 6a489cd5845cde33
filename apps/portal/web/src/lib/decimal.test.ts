import { describe, expect, it } from 'vitest';
import { isZero, relativeChange } from './decimal';

describe('the change from the previous period', () => {
  it('is a ratio to four places: 112.50 after 100 is up 12.5%, 90 after 100 down 10%', () => {
    expect(relativeChange('112.50', '100')).toBe('0.1250');
    expect(relativeChange('90', '100')).toBe('-0.1000');
    expect(relativeChange(1204, 1204)).toBe('0.0000');
    expect(relativeChange(300, 100)).toBe('2.0000');
  });

  it('has none when there was nothing before', () => {
    expect(relativeChange('5.00', '0')).toBeNull();
    expect(relativeChange('0', '0.00')).toBeNull();
  });

  it('rounds half away from zero, the same way up and down', () => {
    expect(relativeChange('100.005', '100')).toBe('0.0001');
    expect(relativeChange('99.995', '100')).toBe('-0.0001');
    expect(relativeChange('1', '3')).toBe('-0.6667');
    expect(relativeChange('2', '3')).toBe('-0.3333');
  });

  it('is exact on amounts a float cannot hold', () => {
    expect(relativeChange('90071992547409930.10', '90071992547409930.00')).toBe('0.0000');
    expect(relativeChange('180143985094819860', '90071992547409930')).toBe('1.0000');
  });

  it('compares against a negative previous value by its size (a correction that went from -100 to -50 is up 50%)', () => {
    expect(relativeChange('-50', '-100')).toBe('0.5000');
  });

  it('refuses what is not a decimal instead of guessing', () => {
    expect(() => relativeChange('1e3', '1')).toThrow('not a decimal');
    expect(() => relativeChange('12,50', '1')).toThrow('not a decimal');
  });
});

describe('zero', () => {
  it('is zero at any scale and sign', () => {
    expect(isZero('0')).toBe(true);
    expect(isZero('0.000')).toBe(true);
    expect(isZero('-0.00')).toBe(true);
    expect(isZero('0.001')).toBe(false);
  });
});
