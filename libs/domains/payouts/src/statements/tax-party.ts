/**
 * The publisher's tax details as a statement prints them (the tax profile, `../tax/`): kind,
 * legal name, postal address lines, country, VAT id, and the taxpayer id's kind with the id masked.
 */
import type { PayoutsDeps } from '../deps';
import { taxPartyOf } from '../tax/tax.service';

export interface TaxParty {
  kind: 'individual' | 'company';
  legal_name: string;
  address: string[];
  country: string;
  vat_id: string | null;
  tin_kind: string | null;
  tin_masked: string | null;
}

/** The account's tax party, or null without a tax profile. */
export async function statementTaxParty(deps: PayoutsDeps, publisherId: string): Promise<TaxParty | null> {
  const t = await taxPartyOf(deps, publisherId);
  if (!t) return null;
  return {
    kind: t.kind,
    legal_name: t.legal_name,
    address: t.address_lines,
    country: t.country,
    vat_id: t.vat_id,
    tin_kind: t.tin_kind,
    tin_masked: t.tin_masked,
  };
}
