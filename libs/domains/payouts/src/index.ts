/** Payouts: methods, runs, the rails' files (bank and PayPal), exchange rates. */
// The rails' files (pure: rows in, file text out; the banks' answers in, results out).
export { PAIN_001_NAMESPACE, sepaCreditTransfer } from './rails/sepa-credit-transfer';
export type { SepaCreditTransferInput, SepaPayment } from './rails/sepa-credit-transfer';
export { fromSepaReference, isSepaText, toSepaReference, toSepaText } from './rails/sepa-charset';
export {};
