import { describe, expect, it } from 'vitest';
import { words } from './words';

describe('a value in words', () => {
  it('reads a snake_case or dotted value as words with a capital', () => {
    expect(words('read_only')).toBe('Read only');
    expect(words('sale.approved')).toBe('Sale approved');
    expect(words('active')).toBe('Active');
  });

  it('shows a dash for nothing', () => {
    expect(words(null)).toBe('—');
    expect(words(undefined)).toBe('—');
    expect(words('')).toBe('—');
  });
});
