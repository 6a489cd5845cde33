/** Payouts: methods, runs, the rails' files (bank and PayPal), exchange rates. */
// The rails' files (pure: rows in, file text out; the banks' answers in, results out).
export { PAIN_001_NAMESPACE, sepaCreditTransfer } from './rails/sepa-credit-transfer';
export type { SepaCreditTransferInput, SepaPayment } from './rails/sepa-credit-transfer';
export { fromSepaReference, isSepaText, toSepaReference, toSepaText } from './rails/sepa-charset';
export { PAYPAL_CURRENCIES, PAYPAL_MAX_ROWS, paypalPayoutsCsv, paypalPayoutsFiles } from './rails/paypal-payouts';
export type { PaypalFileOptions, PaypalPayout } from './rails/paypal-payouts';
export { PAYOUTS_CSV_COLUMNS, payoutsCsv } from './rails/payouts-csv';
export type { RailPayout } from './rails/payouts-csv';
export { parsePain002, paymentResults } from './rails/pain002';
export type { StatusReport } from './rails/pain002';
export { parseResultsCsv, RESULTS_CSV_COLUMNS } from './rails/results-csv';
export { PAIN_002_NAMESPACE, sandboxBankReport } from './rails/sandbox-bank';
export type { SandboxBankOptions } from './rails/sandbox-bank';
export { reasonMessage } from './rails/status-reasons';
export type { PaymentReason, PaymentResult, PaymentStatus } from './rails/status-reasons';
// Payout methods: validated (IBAN + BIC, US ACH, PayPal), sealed with the key ring, shown masked.
export { ACH_ACCOUNT_TYPES, PAYOUT_METHOD_FIELDS, PAYOUT_METHOD_INPUT, PAYOUT_METHOD_TYPES } from './methods/payout-method.schemas';
export type { AchAccountType, PayoutMethodType } from './methods/payout-method.schemas';
export { clearFields, maskEmail } from './methods/payout-method';
export type { AchMethod, IbanMethod, MaskedPayoutMethod, PaypalMethod, PayoutMethod } from './methods/payout-method';
export { validatePayoutMethod } from './methods/validate-payout-method';
export { maskedMethod, openPayoutMethod, payoutMethodFingerprint, sealPayoutMethod } from './methods/seal-payout-method';
export type { StoredPayoutMethod } from './methods/seal-payout-method';
// Exchange rates: the ECB's reference rates (XML) and exact conversions through the euro.
export { MAX_ECB_XML_BYTES, parseEcbRateDays, parseEcbRates, ratesOn } from './fx/ecb-rates';
export type { EcbRates } from './fx/ecb-rates';
export { convert, RATE_SIGNIFICANT_DIGITS } from './fx/convert';
export type { Conversion } from './fx/convert';
// The data, settings, runs and publishers' payouts.
export { PayoutsData, payoutsDomain } from './data/payouts.data';
export type { PayoutsModels } from './data/payouts.data';
export { HOLD_REASONS, PAYOUT_SCHEDULES, PAYOUT_STATUSES, RAILS } from './data/payouts.schema';
export type { FxRatesDoc, HoldReason, PayoutDoc, PayoutProfileDoc, PayoutRunDoc, PayoutSchedule, PayoutStatus, Rail } from './data/payouts.schema';
export type { NoticeAttachment, PayoutNotice, PayoutsDeps } from './deps';
export { latestRates, operatorImportFx } from './fx.service';
export { getPayoutSettings, PAYOUT_SETTINGS_INPUT, profileOf, setPayoutProfile, updatePayoutSettings } from './settings.service';
export {
  addPayout,
  dueNow,
  operatorApprovePayoutRun,
  operatorCreatePayoutRun,
  operatorDecideHold,
  operatorExportPayoutRun,
  operatorListPayoutRuns,
  operatorPayoutRun,
  operatorSettlePayoutRun,
  openScheduledRun,
  payoutEvent,
  payoutIdOf,
  payoutPostings,
  SCHEDULED_RUN_DAY,
  scheduledRunIdOf,
  SCHEDULER,
} from './runs.service';
export type { PayoutRow, RailFile, RunRow } from './runs.service';
export {
  getPayout,
  LIST_PAYOUTS_INPUT,
  listPayouts,
  PAYOUT_ID_INPUT,
  PAYOUT_REQUEST_POLICY,
  PAYOUT_SCHEMA,
  PAYOUTS_READ_POLICY,
  payoutView,
  requestPayout,
} from './payouts.service';
export { payoutNoticeMail } from './notices';
export { payoutEventBody, payoutEventSource } from './payout-events';
// Self-billing statements: issued when a payout is paid, numbered without gaps, a PDF and its snapshot.
export { STATEMENT_SCHEMA } from './statements/snapshot';
export type { StatementCurrency, StatementLine, StatementSnapshot } from './statements/snapshot';
export type { StatementDoc } from './statements/statement.schema';
export { issueMissingStatements, issueStatement, operatorReissueStatement, pdfBytes, statementNumber } from './statements/issue';
export { getPayoutStatement, statementOf } from './statements/statements.service';
export type { PayoutStatement } from './statements/statements.service';
export { renderStatementPdf } from './statements/render';
export { pdfText } from './statements/pdf-text';
export { EU_MEMBER_STATES, REVERSE_CHARGE_TEXT, VAT_TREATMENTS, vatTreatment } from './statements/vat';
export type { VatTreatment } from './statements/vat';
// The tax profile, its hold, the payee as a statement names it, the year-end exports.
export {
  addressLines,
  countryName,
  EU_COUNTRIES,
  FORM_1099_NEC_COLUMNS,
  form1099NecCsv,
  form1099Threshold,
  getTaxProfile,
  isCountry,
  maskTin,
  maskVatId,
  openTaxProfile,
  operatorTaxYearEnd,
  PAYOUTS_BY_COUNTRY_COLUMNS,
  payoutsByCountryCsv,
  payeeCountryOf,
  setTaxProfile,
  TAX_FORMS,
  TAX_KINDS,
  TAX_PROFILE_INPUT,
  taxPartyOf,
  taxProfileIncomplete,
  taxProfileRequired,
  updateTaxProfile,
  validateTaxProfile,
  VAT_COUNTRIES,
  YEAR_END_INPUT,
  yearEndExports,
} from './tax/index';
export type { CountryTotal, Form1099Row, StoredTaxProfile, TaxAddress, TaxForm, TaxKind, TaxParty, TaxProfile, TinKind, YearEndFile } from './tax/index';
