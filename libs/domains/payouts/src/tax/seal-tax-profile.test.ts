import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { addressLines, maskTin, maskVatId, openTaxProfile, ownerTaxView, sealTaxProfile } from './seal-tax-profile';
import { validateTaxProfile } from './validate-tax-profile';

const base = randomBytes(32);
const keys = keyRing(base);
const rotated = keyRing(base, [{ id: 'k2', key: randomBytes(32) }]);

const w9 = () =>
  validateTaxProfile({
    kind: 'company',
    legal_name: 'Trailhead Reviews LLC',
    address: { lines: ['500 Market St', 'Suite 4'], city: 'San Francisco', postal_code: '94105', region: 'CA', country: 'US' },
    country: 'US',
    w9: { tin_kind: 'ein', tin: '98-7654321' },
    signature: 'Trailhead Reviews LLC',
  });
const w8 = () =>
  validateTaxProfile({
    kind: 'individual',
    legal_name: 'Jonas Weber',
    address: { lines: ['Hauptstraße 5'], city: 'Berlin', postal_code: '10115', country: 'DE' },
    country: 'DE',
    vat_id: 'DE136695976',
    w8: { country: 'DE', foreign_tin: '86095742719' },
    signature: 'Jonas Weber',
  });

describe('a stored tax profile', () => {
  it('keeps beside the seal only the kind, countries, form, the masked ids and when it was signed', () => {
    const stored = sealTaxProfile(keys, w9());
    const { sealed, ...visible } = stored;
    expect(visible).toEqual({
      kind: 'company',
      country: 'US',
      form: 'w9',
      tin_kind: 'ein',
      tin_masked: '••-•••4321',
      vat_masked: null,
      signed_at: expect.any(Date),
    });
    expect(JSON.stringify(stored)).not.toMatch(/7654321|987654321|Trailhead|500 Market/);
    expect(sealed.kid).toBeTruthy();
    expect(sealTaxProfile(keys, w8())).toMatchObject({ form: 'w8ben', tin_kind: 'foreign', tin_masked: '•••2719', vat_masked: 'DE•••5976' });
  });

  it('opens to the very profile sealed, also after the keys rotated; an altered seal or another profile does not open', () => {
    const stored = sealTaxProfile(keys, w9());
    expect(openTaxProfile(rotated, stored)).toEqual({ ...w9(), signed_at: stored.signed_at.toISOString() });
    const tampered = { ...stored, sealed: { ...stored.sealed, data: Buffer.from('{"kind":"company"}').toString('base64') } };
    expect(() => openTaxProfile(keys, tampered)).toThrow();
    expect(() => openTaxProfile(keys, { ...stored, country: 'DE' })).toThrow(/does not match/);
  });

  it('shows its owner names, address and countries, and the ids masked', () => {
    const stored = sealTaxProfile(keys, w8());
    const view = ownerTaxView(stored, openTaxProfile(keys, stored));
    expect(view).toMatchObject({
      legal_name: 'Jonas Weber',
      country: 'DE',
      form: 'w8ben',
      tin: '•••2719',
      vat_id: 'DE•••5976',
      w8: { country: 'DE', treaty: null },
    });
    expect(JSON.stringify(view)).not.toMatch(/86095742719|136695976/);
  });
});

describe('masks and address lines', () => {
  it('mask an SSN, an EIN, a short and a long foreign id, a VAT id', () => {
    expect(maskTin('ssn', '078-05-1120')).toBe('•••-••-1120');
    expect(maskTin('ein', '12-3456789')).toBe('••-•••6789');
    expect(maskTin('foreign', '12/345')).toBe('••••');
    expect(maskTin('foreign', '21/815/08150')).toBe('•••8150');
    expect(maskVatId('NL004495445B01')).toBe('NL•••5B01');
  });

  it('print a US address as city, state ZIP and others as postal code and city, with the country named', () => {
    expect(addressLines(w9().address)).toEqual(['500 Market St', 'Suite 4', 'San Francisco, CA 94105', 'United States']);
    expect(addressLines(w8().address)).toEqual(['Hauptstraße 5', '10115 Berlin', 'Germany']);
  });
});
