/** Payouts: methods, runs, the rails' files (bank and PayPal), exchange rates. */
export {};
