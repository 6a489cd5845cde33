import { describe, expect, it } from 'vitest';
import { REVERSE_CHARGE_TEXT, vatTreatment, vatIdCountry } from './vat';

const network = { country: 'DE', domesticVatText: 'Domestic: the network config says so.' };

describe('the VAT treatment a statement states', () => {
  it('reverse charge for a business in another member state with a VAT id of that state', () => {
    expect(vatTreatment(network, { kind: 'company', country: 'FR', vat_id: 'FR40303265045' })).toEqual({
      treatment: 'reverse_charge',
      text: REVERSE_CHARGE_TEXT,
    });
    expect(REVERSE_CHARGE_TEXT).toContain('Reverse charge: VAT to be accounted for by the recipient, Art. 196 Directive 2006/112/EC');
    // Greece's VAT ids start EL.
    expect(vatTreatment(network, { kind: 'company', country: 'GR', vat_id: 'EL094259216' }).treatment).toBe('reverse_charge');
    expect(vatIdCountry('EL094259216')).toBe('GR');
  });

  it('no VAT for an individual, wherever they live', () => {
    for (const country of ['DE', 'FR', 'US']) {
      const v = vatTreatment(network, { kind: 'individual', country, vat_id: null });
      expect(v.treatment).toBe('not_taxable_person');
      expect(v.text).toMatch(/not a taxable person/);
    }
  });

  it("a business in the network's own country gets the network's configured words", () => {
    expect(vatTreatment(network, { kind: 'company', country: 'DE', vat_id: 'DE136695976' })).toEqual({ treatment: 'domestic', text: network.domesticVatText });
  });

  it('a business of another member state without a VAT id of that state is not reverse charged', () => {
    expect(vatTreatment(network, { kind: 'company', country: 'FR', vat_id: null }).treatment).toBe('no_vat_id');
    expect(vatTreatment(network, { kind: 'company', country: 'FR', vat_id: 'NL004495445B01' }).treatment).toBe('no_vat_id');
  });

  it('a business outside the EU: no VAT charged, the recipient accounts for any due', () => {
    const v = vatTreatment(network, { kind: 'company', country: 'US', vat_id: null });
    expect(v.treatment).toBe('outside_eu');
    expect(v.text).toMatch(/Art\. 44 and 196/);
  });

  it('a network outside the EU charges no EU VAT; without a tax profile nothing is assumed', () => {
    expect(vatTreatment({ ...network, country: 'US' }, { kind: 'company', country: 'FR', vat_id: 'FR40303265045' }).treatment).toBe('no_vat');
    expect(vatTreatment(network, null)).toEqual({ treatment: 'undetermined', text: 'VAT treatment not determined: no tax profile on file.' });
  });
});
