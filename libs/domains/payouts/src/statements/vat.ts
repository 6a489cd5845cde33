/**
 * The VAT treatment a self-billing statement states (docs/decisions/0058-statements-and-vat.md).
 * The network receives the publisher's services (promotion for commission) and issues the
 * statement on the publisher's behalf. A statement never adds VAT to a payout: it says who
 * accounts for it. Pure: parties in, treatment and its words out.
 */

/** The EU's member states (ISO alpha-2; Greece's VAT ids start EL). */
export const EU_MEMBER_STATES: readonly string[] = [
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
]; // prettier-ignore

export const VAT_TREATMENTS = ['reverse_charge', 'not_taxable_person', 'no_vat_id', 'domestic', 'outside_eu', 'no_vat', 'undetermined'] as const;
export type VatTreatment = (typeof VAT_TREATMENTS)[number];

export const REVERSE_CHARGE_TEXT = 'Reverse charge: VAT to be accounted for by the recipient, Art. 196 Directive 2006/112/EC.';

export interface VatNetwork {
  country: string;
  /** What a statement says to a business in the network's own country (config, PAYOUT_NETWORK_DOMESTIC_VAT_TEXT). */
  domesticVatText: string;
}

export interface VatSupplier {
  kind: 'individual' | 'company';
  country: string;
  /** Validated when the profile was saved (format and check digits per member state). */
  vat_id: string | null;
}

/** The member state a VAT id belongs to (its prefix; EL is Greece). */
export const vatIdCountry = (vatId: string): string => {
  const prefix = vatId.slice(0, 2).toUpperCase();
  return prefix === 'EL' ? 'GR' : prefix;
};

/**
 * - no tax profile: `undetermined` (the statement says so; nothing is assumed);
 * - an individual: `not_taxable_person` (no VAT: a private person is not a taxable person);
 * - the network outside the EU: `no_vat` (no EU VAT applies to what it receives);
 * - a company in the network's country: `domestic` (the network's configured words);
 * - a company in another member state with an EU VAT id of that state: `reverse_charge` (Art. 196);
 * - a company in another member state without one: `no_vat_id` (no VAT charged: not registered);
 * - a company outside the EU: `outside_eu` (place of supply is the network's country, Art. 44; the
 *   network accounts for any VAT due itself, Art. 196).
 */
export function vatTreatment(network: VatNetwork, supplier: VatSupplier | null): { treatment: VatTreatment; text: string } {
  if (!supplier) return { treatment: 'undetermined', text: 'VAT treatment not determined: no tax profile on file.' };
  if (supplier.kind === 'individual')
    return { treatment: 'not_taxable_person', text: 'No VAT: the supplier is a private individual, not a taxable person (Art. 9 Directive 2006/112/EC).' };
  const networkInEu = EU_MEMBER_STATES.includes(network.country);
  if (!networkInEu) return { treatment: 'no_vat', text: 'No VAT charged.' };
  if (supplier.country === network.country) return { treatment: 'domestic', text: network.domesticVatText };
  if (EU_MEMBER_STATES.includes(supplier.country)) {
    if (supplier.vat_id && vatIdCountry(supplier.vat_id) === supplier.country) return { treatment: 'reverse_charge', text: REVERSE_CHARGE_TEXT };
    return {
      treatment: 'no_vat_id',
      text: 'No VAT charged: the supplier gave no VAT identification number of its member state (not registered for VAT).',
    };
  }
  return {
    treatment: 'outside_eu',
    text: 'Supplier established outside the EU: no VAT charged; VAT, where due, is accounted for by the recipient (Art. 44 and 196 Directive 2006/112/EC).',
  };
}
