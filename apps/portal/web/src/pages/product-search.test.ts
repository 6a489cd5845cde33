import { describe, expect, it } from 'vitest';
import { validateProductSearch } from '../generated/validators.js';
import { checkForm, errorsFromFailure } from '../lib/validation';
import { hasCriteria, newSearchOf, noCriteria, searchOf, searchParamsOf, typed } from './product-search';

describe('a product search in the URL', () => {
  it('is read back with only the API’s parameters', () => {
    expect(searchOf(new URLSearchParams('q=running+shoes&country=DE&merchant=12&utm_source=mail&brand=&offset=40'))).toEqual({
      q: 'running shoes',
      country: 'DE',
      merchant: '12',
      offset: '40',
    });
  });

  it('is typed as the API’s schema types it: whole numbers where it says integer, the rest as typed', () => {
    expect(typed({ q: 'shoes', merchant: '12', limit: '50', offset: '0', min_price: '10', group: '1' })).toEqual({
      q: 'shoes',
      merchant: 12,
      limit: 50,
      offset: 0,
      min_price: '10',
      group: 1,
    });
    expect(typed({ merchant: '1.5', q: '' })).toEqual({ merchant: '1.5' });
  });
});

describe('a new search from the form', () => {
  it('trims the words and starts at the first page, in a URL that reads as the form', () => {
    const next = newSearchOf({ q: '  running shoes ', brand: ' Acme ', category: '', country: 'DE', offset: '40', limit: '50' });
    expect(next).toMatchObject({ q: 'running shoes', brand: 'Acme', country: 'DE', limit: '50' });
    expect(next.offset).toBeUndefined();
    expect(searchParamsOf(next).toString()).toBe('q=running+shoes&brand=Acme&country=DE&limit=50');
  });

  it('needs words, a brand, a category or a country, and says so on the search field', () => {
    expect(hasCriteria(newSearchOf({ q: '   ', merchant: '12' }))).toBe(false);
    expect(hasCriteria({ country: 'FR' })).toBe(true);
    expect(errorsFromFailure(noCriteria(), ['q']).fields).toEqual({ q: 'Enter words to search for, or choose a brand, a category or a country.' });
  });

  it('is checked with the API’s own schema before the call: too short words, a merchant id that is not a whole number', () => {
    const e = checkForm(validateProductSearch, typed({ q: 'ab', merchant: '1.5' }));
    expect(e?.fields).toEqual({ q: 'At least 3 characters.', merchant: 'Must be integer.' });
    expect(checkForm(validateProductSearch, typed({ q: 'shoes', merchant: '12', limit: '100' }))).toBeNull();
  });
});
