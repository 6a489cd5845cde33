/**
 * The input of a payout method (the portal's `/settings/payouts`): a bank account by IBAN + BIC, a
 * US bank account for ACH, or a PayPal e-mail. The schema bounds every field and says which each
 * type requires; what a number must be (checksums, lengths per country) is checked by
 * `validatePayoutMethod`, which names the field it refuses.
 */
import { displayText } from '@cw/validation';

export const PAYOUT_METHOD_TYPES = ['iban', 'ach', 'paypal'] as const;
export type PayoutMethodType = (typeof PAYOUT_METHOD_TYPES)[number];

export const ACH_ACCOUNT_TYPES = ['checking', 'savings'] as const;
export type AchAccountType = (typeof ACH_ACCOUNT_TYPES)[number];

/** The fields each type takes (any other field of the schema is refused for that type). */
export const PAYOUT_METHOD_FIELDS: Record<PayoutMethodType, readonly string[]> = {
  iban: ['type', 'holder_name', 'iban', 'bic', 'currency'],
  ach: ['type', 'holder_name', 'routing_number', 'account_number', 'account_type'],
  paypal: ['type', 'holder_name', 'email'],
};

const whenType = (type: PayoutMethodType, required: readonly string[]) =>
  ({ if: { properties: { type: { const: type } }, required: ['type'] }, then: { required } }) as const;

export const PAYOUT_METHOD_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', enum: PAYOUT_METHOD_TYPES, description: 'iban (bank account by IBAN and BIC), ach (US bank account) or paypal.' },
    /** SEPA's limit for a beneficiary's name (EPC rulebook: 70 characters). */
    holder_name: displayText({ maxLength: 70, description: "The account holder's name, as the bank or PayPal knows it." }),
    iban: { type: 'string', minLength: 1, maxLength: 64, description: 'IBAN; spaces and dashes allowed, any case.' },
    bic: { type: 'string', minLength: 1, maxLength: 16, description: 'BIC (SWIFT code) of the bank: 8 or 11 letters and digits.' },
    currency: { type: 'string', minLength: 3, maxLength: 3, description: "The account's currency (ISO 4217), when the bank says." },
    routing_number: { type: 'string', minLength: 1, maxLength: 16, description: 'ABA routing number: 9 digits.' },
    account_number: { type: 'string', minLength: 1, maxLength: 32, description: 'US account number: 4 to 17 digits.' },
    account_type: { type: 'string', enum: ACH_ACCOUNT_TYPES },
    email: { type: 'string', format: 'email', minLength: 3, maxLength: 254, description: 'The e-mail address of the PayPal account.' },
  },
  allOf: [
    whenType('iban', ['holder_name', 'iban', 'bic']),
    whenType('ach', ['holder_name', 'routing_number', 'account_number', 'account_type']),
    whenType('paypal', ['email']),
  ],
} as const;
