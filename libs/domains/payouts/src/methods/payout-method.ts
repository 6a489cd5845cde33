/**
 * A payout method in the clear, as `validatePayoutMethod` normalises it and `openPayoutMethod`
 * gives it back to the rails: nowhere else. Its account fields (holder name, IBAN, routing and
 * account numbers, PayPal address) are own properties that are not enumerable: read by name
 * (`method.iban`) they are there, but `JSON.stringify`, a spread, `util.inspect` and the logger
 * (pino copies what it redacts, so a `toJSON` would not hold) see only the type, BIC, country,
 * currency and account type. A method logged by mistake shows no account.
 */
import type { AchAccountType, PayoutMethodType } from './payout-method.schemas';

export interface IbanMethod {
  type: 'iban';
  holder_name: string;
  /** Electronic format: no spaces, upper case (DE89370400440532013000). */
  iban: string;
  /** Upper case, 8 or 11 characters, as given. */
  bic: string;
  /** ISO 3166 country of the IBAN (its first two letters). */
  country: string;
  currency?: string;
}

export interface AchMethod {
  type: 'ach';
  holder_name: string;
  routing_number: string;
  account_number: string;
  account_type: AchAccountType;
  country: 'US';
  currency: 'USD';
}

export interface PaypalMethod {
  type: 'paypal';
  /** Lower case: PayPal addresses are matched without regard to case. */
  email: string;
  holder_name?: string;
}

export type PayoutMethod = IbanMethod | AchMethod | PaypalMethod;

/** What every view shows of a method (the spec's payment method: a bank account by its last 4 digits). */
export interface MaskedPayoutMethod {
  type: PayoutMethodType;
  /** The last 4 characters of the IBAN or the US account number; for PayPal the masked address (`m•••@example.com`). */
  last4: string;
}

/** `maria@example.com` -> `m•••@example.com`: the first character, three dots whatever the length, the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

export function maskOf(method: PayoutMethod): MaskedPayoutMethod {
  switch (method.type) {
    case 'iban':
      return { type: 'iban', last4: method.iban.slice(-4) };
    case 'ach':
      return { type: 'ach', last4: method.account_number.slice(-4) };
    case 'paypal':
      return { type: 'paypal', last4: maskEmail(method.email) };
  }
}

/** The fields of a method that identify the account or its holder. */
const ACCOUNT_FIELDS = ['holder_name', 'iban', 'routing_number', 'account_number', 'email'] as const;

/** The method with its account fields made non-enumerable (see above). */
export function guarded<M extends PayoutMethod>(method: M): M {
  for (const field of ACCOUNT_FIELDS)
    if (Object.hasOwn(method, field)) Object.defineProperty(method, field, { enumerable: false, writable: false, configurable: false });
  return method;
}

/** Every field of a method, the account's too, as one plain object (what the seal holds). */
export function clearFields(method: PayoutMethod): Record<string, string> {
  const fields = method as unknown as Record<string, string>;
  return Object.fromEntries(Object.getOwnPropertyNames(method).map((name) => [name, fields[name]!]));
}
