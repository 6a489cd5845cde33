import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { errorsFromFailure } from '../../lib/validation';
import { EMPTY_TAX, LABELS, onFormFields, taxInputOf } from './tax-form';

const FIELDS = Object.keys(LABELS);
const ADDRESS = { legal_name: ' Ana Pérez ', line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', signature: 'Ana Pérez' };

describe('a tax profile from the form', () => {
  it('sends a W-9 for a US person, an EIN for a company, the second address line only when given', () => {
    const person = taxInputOf({ ...EMPTY_TAX, ...ADDRESS, region: 'NY', tin: '123-45-6789' }, false);
    expect(person).toEqual({
      kind: 'individual',
      legal_name: 'Ana Pérez',
      country: 'US',
      address: { lines: ['Hauptstr. 1'], city: 'Berlin', postal_code: '10115', region: 'NY', country: 'US' },
      signature: 'Ana Pérez',
      w9: { tin_kind: 'ssn', tin: '123-45-6789' },
    });
    const company = taxInputOf({ ...EMPTY_TAX, ...ADDRESS, kind: 'company', region: 'NY', tin: '12-3456789', line2: 'Suite 5' }, false);
    expect(company).toMatchObject({ kind: 'company', w9: { tin_kind: 'ein' }, address: { lines: ['Hauptstr. 1', 'Suite 5'] } });
  });

  it('sends a W-8 for anyone else, with the treaty claim of the country of residence only when claimed', () => {
    const draft = { ...EMPTY_TAX, ...ADDRESS, country: 'DE', address_country: 'DE', w8_country: 'DE', foreign_tin: '12345678901', vat_id: 'DE123456789' };
    expect(taxInputOf(draft, false)).toEqual({
      kind: 'individual',
      legal_name: 'Ana Pérez',
      country: 'DE',
      address: { lines: ['Hauptstr. 1'], city: 'Berlin', postal_code: '10115', country: 'DE' },
      vat_id: 'DE123456789',
      signature: 'Ana Pérez',
      w8: { country: 'DE', foreign_tin: '12345678901' },
    });
    expect(taxInputOf({ ...draft, treaty_article: '7', treaty_rate: '0' }, true)).toMatchObject({
      w8: { country: 'DE', foreign_tin: '12345678901', treaty: { country: 'DE', article: '7', rate: '0' } },
    });
  });

  it('names the missing fields a US person and a treaty claim need, under each field', () => {
    const us = taxInputOf({ ...EMPTY_TAX, ...ADDRESS }, false);
    expect(errorsFromFailure(us, FIELDS).fields).toEqual({ tin: 'Is required.', region: 'Is required.' });
    const treaty = taxInputOf({ ...EMPTY_TAX, ...ADDRESS, country: 'DE', w8_country: 'DE', foreign_tin: '1' }, true);
    expect(errorsFromFailure(treaty, FIELDS).fields).toEqual({ treaty_article: 'Is required.', treaty_rate: 'Is required.' });
    expect(Object.keys(errorsFromFailure(taxInputOf(EMPTY_TAX, false), FIELDS).fields)).toEqual([
      'legal_name',
      'line1',
      'city',
      'postal_code',
      'signature',
      'tin',
      'region',
    ]);
  });
});

describe('the API’s problems with a tax profile', () => {
  it('are placed on the form’s fields (address.city on City, w9.tin on the TIN, w8.treaty.rate on the rate)', () => {
    const refused = new ApiError({
      status: 400,
      code: 'invalid_parameter',
      detail: 'Invalid.',
      errors: [
        { param: 'body.address.city', detail: 'is required' },
        { param: 'address.lines[1]', detail: 'is too long' },
        { param: 'w9.tin', detail: 'must be 9 digits' },
        { param: 'w8.treaty.rate', detail: 'must be 0 to 30' },
        { param: 'w8', detail: 'needs a foreign taxpayer id' },
      ],
    });
    expect(errorsFromFailure(onFormFields(refused), FIELDS).fields).toEqual({
      city: 'Is required.',
      line2: 'Is too long.',
      tin: 'Must be 9 digits.',
      treaty_rate: 'Must be 0 to 30.',
      foreign_tin: 'Needs a foreign taxpayer id.',
    });
  });
});
