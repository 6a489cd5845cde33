import { describe, expect, it } from 'vitest';
import { isValidGtin, withCheckDigit } from './gtin';
import { productId } from './product-id';

describe('GTIN check digits', () => {
  it('accepts real GTIN-8, GTIN-12, GTIN-13 and GTIN-14 numbers', () => {
    for (const g of ['96385074', '036000291452', '4006381333931', '00012345600012', '0012345678905']) expect(isValidGtin(g)).toBe(true);
  });

  it('rejects wrong check digits, other lengths and non-digits', () => {
    for (const g of ['4006381333932', '12345', '400638133393A', '', '4006381333931 ']) expect(isValidGtin(g)).toBe(false);
  });

  it('completes a body with its check digit', () => {
    expect(withCheckDigit('400638133393')).toBe('4006381333931');
    expect(isValidGtin(withCheckDigit('001234567890'))).toBe(true);
  });
});

describe('productId', () => {
  it('is stable for one GTIN, program and country and differs otherwise', () => {
    expect(productId('4006381333931', 1001, 'DE')).toBe(productId('4006381333931', 1001, 'DE'));
    expect(productId('4006381333931', 1001, 'GB')).not.toBe(productId('4006381333931', 1001, 'DE'));
  });
});
