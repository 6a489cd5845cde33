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
export {};
