/** The tax profile (`/settings/tax`), the tax_profile_incomplete hold, the payee as a statement names it, and the year-end exports. */
export { TAX_ADDRESS_INPUT, TAX_FORMS, TAX_KINDS, TAX_PROFILE_INPUT, US_TIN_KINDS } from './tax-profile.schemas';
export type { TaxForm, TaxKind, UsTinKind } from './tax-profile.schemas';
export { countryName, EU_COUNTRIES, isCountry, normalUsTin, normalVatId, sameName, validateTaxProfile, VAT_COUNTRIES } from './validate-tax-profile';
export type { TaxAddress, TaxProfile } from './validate-tax-profile';
export { addressLines, maskTin, maskVatId, openTaxProfile, ownerTaxView, sealTaxProfile } from './seal-tax-profile';
export type { StoredTaxProfile, TinKind } from './seal-tax-profile';
export { getTaxProfile, payeeCountryOf, setTaxProfile, taxPartyOf, taxProfileIncomplete, taxProfileRequired, updateTaxProfile } from './tax.service';
export type { TaxParty } from './tax.service';
export {
  FORM_1099_NEC_COLUMNS,
  form1099NecCsv,
  form1099Threshold,
  operatorTaxYearEnd,
  PAYOUTS_BY_COUNTRY_COLUMNS,
  payoutsByCountryCsv,
  YEAR_END_INPUT,
  yearEndExports,
} from './year-end';
export type { CountryTotal, Form1099Row, Payer, YearEndFile } from './year-end';
