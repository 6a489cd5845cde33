import { describe, expect, it } from 'vitest';
import { normalUsTin, normalVatId, validateTaxProfile } from './validate-tax-profile';

const US_INDIVIDUAL = {
  kind: 'individual',
  legal_name: 'Maria  Gonzalez',
  address: { lines: ['1600 Amphitheatre Pkwy'], city: 'Mountain View', postal_code: '94043', region: 'ca', country: 'us' },
  country: 'US',
  w9: { tin_kind: 'ssn', tin: '123 45 6789' },
  signature: 'maria gonzalez',
};

const DE_COMPANY = {
  kind: 'company',
  legal_name: 'Trail Notes GmbH',
  address: { lines: ['Hauptstraße 5'], city: 'Berlin', postal_code: '10115', country: 'DE' },
  country: 'DE',
  vat_id: 'de 136 695 976',
  w8: { country: 'DE', foreign_tin: '21/815/08150', treaty: { country: 'DE', article: 'Article 7', rate: '0%' } },
  signature: 'TRAIL NOTES GMBH',
};

const refusal = (param: string) => expect.objectContaining({ status: 400, code: 'invalid_parameter', errors: [expect.objectContaining({ param })] });

describe('tax profile: a US person signs a W-9', () => {
  it('keeps the SSN in its dashed form, the state in capitals, the signing date from the server', () => {
    const now = new Date('2026-12-07T10:00:00Z');
    const p = validateTaxProfile(US_INDIVIDUAL, now);
    expect(p).toMatchObject({ form: 'w9', legal_name: 'Maria Gonzalez', country: 'US', vat_id: null, w9: { tin_kind: 'ssn', tin: '123-45-6789' } });
    expect(p.address).toEqual({ lines: ['1600 Amphitheatre Pkwy'], city: 'Mountain View', postal_code: '94043', region: 'CA', country: 'US' });
    expect(p.signed_at).toBe('2026-12-07T10:00:00.000Z');
  });

  it('needs the W-9 and refuses a W-8 for a US person', () => {
    const { w9: _w9, ...noW9 } = US_INDIVIDUAL;
    expect(() => validateTaxProfile(noW9)).toThrow(refusal('w9'));
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, w8: { country: 'US', foreign_tin: '1' } })).toThrow(refusal('w8'));
  });

  it('needs an EIN for a US company', () => {
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, kind: 'company' })).toThrow(refusal('w9.tin_kind'));
    expect(validateTaxProfile({ ...US_INDIVIDUAL, kind: 'company', w9: { tin_kind: 'ein', tin: '123456789' } }).w9).toEqual({
      tin_kind: 'ein',
      tin: '12-3456789',
    });
  });

  it('checks a ZIP code and a state', () => {
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, address: { ...US_INDIVIDUAL.address, postal_code: '9404' } })).toThrow(refusal('address.postal_code'));
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, address: { ...US_INDIVIDUAL.address, region: 'XY' } })).toThrow(refusal('address.region'));
  });
});

describe('tax profile: TINs', () => {
  it.each([
    ['000-12-3456', 'ssn'],
    ['123-00-4567', 'ssn'],
    ['123-45-0000', 'ssn'],
    ['666-12-3456', 'ssn'],
    ['900-12-3456', 'ssn'],
    ['12345678', 'ssn'],
    ['1234567890', 'ssn'],
    ['12-34a5555', 'ssn'],
    ['00-1234567', 'ein'],
    ['07-1234567', 'ein'],
    ['12-0000000', 'ein'],
  ] as const)('refuses %s as an %s, without repeating it', (tin, kind) => {
    let message = '';
    try {
      normalUsTin(tin, kind);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/Invalid field 'w9.tin'/);
    expect(message).not.toContain(tin.replace(/-/g, '').slice(-4));
  });

  it('takes SSNs, ITINs and EINs', () => {
    expect(normalUsTin('078-05-1120', 'ssn')).toBe('078-05-1120');
    expect(normalUsTin('912 70 1234', 'ssn')).toBe('912-70-1234');
    expect(normalUsTin('98-7654321', 'ein')).toBe('98-7654321');
  });
});

describe('tax profile: VAT ids per EU member state (jsvat)', () => {
  it.each([
    ['DE', 'DE136695976', 'DE136695976'],
    ['AT', 'ATU13585627', 'ATU13585627'],
    ['FR', 'FR 40 303 265 045', 'FR40303265045'],
    ['NL', 'nl004495445b01', 'NL004495445B01'],
    ['GR', 'EL094259216', 'EL094259216'],
    ['BE', 'BE0411905847', 'BE0411905847'],
    ['IE', 'IE6388047V', 'IE6388047V'],
  ])('takes a valid VAT id of %s', (country, given, stored) => {
    expect(normalVatId(given, country)).toBe(stored);
  });

  it('refuses wrong check digits, another form, another country, and countries without VAT ids we check', () => {
    expect(() => normalVatId('DE136695977', 'DE')).toThrow(/check digits/);
    expect(() => normalVatId('ATU1358562', 'AT')).toThrow(/form of a VAT id of Austria/);
    expect(() => normalVatId('DE136695976', 'FR')).toThrow(/VAT id of France/);
    expect(() => normalVatId('12345', 'DE')).toThrow(/country prefix/);
    expect(() => normalVatId('US123456789', 'US')).toThrow(/EU member states/);
  });
});

describe('tax profile: others sign a W-8BEN or W-8BEN-E', () => {
  it('makes a company outside the US a W-8BEN-E with its VAT id and treaty claim normalised', () => {
    const p = validateTaxProfile(DE_COMPANY);
    expect(p).toMatchObject({
      form: 'w8ben_e',
      vat_id: 'DE136695976',
      w8: { country: 'DE', foreign_tin: '21/815/08150', treaty: { country: 'DE', article: '7', rate: '0' } },
    });
    expect(validateTaxProfile({ ...DE_COMPANY, kind: 'individual', legal_name: 'Jonas Weber', signature: 'Jonas Weber' }).form).toBe('w8ben');
  });

  it('refuses a W-9 outside the US, a missing W-8, a US citizen on a W-8, a treaty of another country or over 30 %', () => {
    expect(() => validateTaxProfile({ ...DE_COMPANY, w9: { tin_kind: 'ein', tin: '12-3456789' } })).toThrow(refusal('w9'));
    const { w8: _w8, ...noW8 } = DE_COMPANY;
    expect(() => validateTaxProfile(noW8)).toThrow(refusal('w8'));
    expect(() => validateTaxProfile({ ...DE_COMPANY, w8: { ...DE_COMPANY.w8, country: 'US' } })).toThrow(refusal('w8.country'));
    expect(() => validateTaxProfile({ ...DE_COMPANY, w8: { ...DE_COMPANY.w8, treaty: { country: 'FR', article: '7', rate: '0' } } })).toThrow(
      refusal('w8.treaty.country'),
    );
    expect(() => validateTaxProfile({ ...DE_COMPANY, w8: { ...DE_COMPANY.w8, treaty: { country: 'DE', article: '7', rate: '31' } } })).toThrow(
      refusal('w8.treaty.rate'),
    );
    expect(() => validateTaxProfile({ ...DE_COMPANY, w8: { ...DE_COMPANY.w8, foreign_tin: '000-000' } })).toThrow(refusal('w8.foreign_tin'));
  });

  it('refuses an unknown country', () => {
    expect(() => validateTaxProfile({ ...DE_COMPANY, country: 'XX' })).toThrow(refusal('country'));
    expect(() => validateTaxProfile({ ...DE_COMPANY, address: { ...DE_COMPANY.address, country: 'EU' } })).toThrow(refusal('address.country'));
  });
});

describe('tax profile: the signature', () => {
  it('is the legal name typed again, whatever its case and spacing', () => {
    expect(validateTaxProfile({ ...US_INDIVIDUAL, signature: '  MARIA GONZALEZ ' }).signature).toBe('MARIA GONZALEZ');
    expect(validateTaxProfile({ ...DE_COMPANY, legal_name: 'Zoë Søren', signature: 'zoë søren' }).legal_name).toBe('Zoë Søren');
  });

  it('refuses another name, or none', () => {
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, signature: 'Maria Gonzales' })).toThrow(refusal('signature'));
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, signature: '   ' })).toThrow(refusal('signature'));
    const { signature: _s, ...unsigned } = US_INDIVIDUAL;
    expect(() => validateTaxProfile(unsigned)).toThrow(refusal('signature'));
  });

  it('refuses control and bidi characters in names (display text)', () => {
    expect(() => validateTaxProfile({ ...US_INDIVIDUAL, legal_name: 'Maria\u202eGonzalez', signature: 'Maria Gonzalez' })).toThrow(refusal('legal_name'));
  });
});
