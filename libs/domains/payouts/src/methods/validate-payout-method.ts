/**
 * A payout method as typed into `/settings/payouts`, checked and normalised, or refused with a 400
 * `invalid_parameter` naming the field. The numbers are checked by maintained libraries, not by
 * checksums of our own: ibantools (IBAN electronic format, country length and BBAN form, ISO 13616
 * mod-97, national check digits; BIC form and country) and Braintree's us-bank-account-validator
 * (the ABA routing number's 3-7-1 check digit). No message repeats the number it refuses.
 */
import { ApiError } from '@cw/errors';
import { isCurrency } from '@cw/money';
import { bodyValidator } from '@cw/validation';
import { ValidationErrorsBIC, ValidationErrorsIBAN, electronicFormatIBAN, extractBIC, getCountrySpecifications, validateBIC, validateIBAN } from 'ibantools';
import { routingNumber as routingNumberValidity } from 'us-bank-account-validator';
import { guarded, type AchMethod, type IbanMethod, type PaypalMethod, type PayoutMethod } from './payout-method';
import { PAYOUT_METHOD_FIELDS, PAYOUT_METHOD_INPUT, type AchAccountType, type PayoutMethodType } from './payout-method.schemas';

interface PayoutMethodInput {
  type: PayoutMethodType;
  holder_name?: string;
  iban?: string;
  bic?: string;
  currency?: string;
  routing_number?: string;
  account_number?: string;
  account_type?: AchAccountType;
  email?: string;
}

const checkInput = bodyValidator<PayoutMethodInput>(PAYOUT_METHOD_INPUT);

function invalidField(param: string, detail: string): ApiError {
  return new ApiError({ code: 'invalid_parameter', detail: `Invalid field '${param}': ${detail}.`, errors: [{ param, detail }] });
}

/** The method normalised (see `PayoutMethod`), or an ApiError `invalid_parameter` naming the field. */
export function validatePayoutMethod(input: unknown): PayoutMethod {
  const given = checkInput(input);
  for (const field of Object.keys(given))
    if (!PAYOUT_METHOD_FIELDS[given.type].includes(field)) throw invalidField(field, `is not a field of a ${given.type} payout method`);
  switch (given.type) {
    case 'iban':
      return guarded(ibanMethod(given));
    case 'ach':
      return guarded(achMethod(given));
    case 'paypal':
      return guarded(paypalMethod(given));
  }
}

function holderName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidField('holder_name', 'must not be blank');
  return name;
}

function ibanMethod(given: PayoutMethodInput): IbanMethod {
  const iban = normalIban(given.iban!);
  const method: IbanMethod = { type: 'iban', holder_name: holderName(given.holder_name!), iban, bic: normalBic(given.bic!), country: iban.slice(0, 2) };
  if (given.currency !== undefined) {
    const currency = given.currency.toUpperCase();
    if (!isCurrency(currency)) throw invalidField('currency', 'must be an ISO 4217 currency code (EUR, GBP, ...)');
    method.currency = currency;
  }
  return method;
}

/** Electronic format (no spaces or dashes, upper case), then every rule ibantools knows for its country. */
function normalIban(raw: string): string {
  const iban = electronicFormatIBAN(raw) ?? '';
  if (!/^[A-Z]{2}[A-Z0-9]+$/.test(iban))
    throw invalidField('iban', 'must be a country code, 2 check digits and the account number, letters and digits only (spaces and dashes are fine)');
  const country = iban.slice(0, 2);
  const problems = validateIBAN(iban, { allowQRIBAN: false }).errorCodes;
  const has = (code: ValidationErrorsIBAN) => problems.includes(code);
  if (has(ValidationErrorsIBAN.NoIBANCountry)) throw invalidField('iban', `must start with the code of a country that issues IBANs (${country} does not)`);
  if (has(ValidationErrorsIBAN.WrongBBANLength))
    throw invalidField(
      'iban',
      `has ${iban.length} characters where an IBAN of ${country} has ${getCountrySpecifications()[country]?.chars ?? 'another number'}`,
    );
  if (has(ValidationErrorsIBAN.ChecksumNotNumber)) throw invalidField('iban', 'must have 2 check digits after the country code');
  if (has(ValidationErrorsIBAN.WrongBBANFormat)) throw invalidField('iban', `does not have the form of an IBAN of ${country} (letters or digits out of place)`);
  if (has(ValidationErrorsIBAN.WrongIBANChecksum))
    throw invalidField('iban', 'has check digits that do not match the number (ISO 13616 mod-97): check it for a typo');
  if (has(ValidationErrorsIBAN.WrongAccountBankBranchChecksum))
    throw invalidField('iban', `has national check digits that do not match the account number (${country}): check it for a typo`);
  if (has(ValidationErrorsIBAN.QRIBANNotAllowed)) throw invalidField('iban', "is a QR-IBAN, made for QR-bills only: give the account's own IBAN");
  if (problems.length) throw invalidField('iban', 'is not a valid IBAN');
  return iban;
}

/**
 * Upper case, spaces dropped; 8 or 11 characters with a known country, and not a test BIC. The BIC's
 * country is not matched to the IBAN's: Jersey, Guernsey and Isle of Man banks (JE, GG, IM BICs)
 * keep GB IBANs, and French overseas and Monaco accounts cross the same way.
 */
function normalBic(raw: string): string {
  const bic = raw.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z0-9]{8}(?:[A-Z0-9]{3})?$/.test(bic)) throw invalidField('bic', 'must be 8 or 11 letters and digits');
  const problems = validateBIC(bic).errorCodes;
  if (problems.includes(ValidationErrorsBIC.NoBICCountry)) throw invalidField('bic', 'must have a country code in characters 5 and 6');
  if (problems.length)
    throw invalidField('bic', 'must be 4 letters (the bank), 2 letters (the country), 2 letters or digits (the place) and optionally 3 (the branch)');
  if (extractBIC(bic).testBIC) throw invalidField('bic', 'is a test BIC (its location code ends in 0), which receives no payments');
  return bic;
}

/** The Federal Reserve's routing symbols of banks, thrifts and electronic entries (ACH); 00 (government) and 80 (travelers checks) take no ACH credit. */
const ACH_ROUTING_PREFIX = /^(?:0[1-9]|1[0-2]|2[1-9]|3[0-2]|6[1-9]|7[0-2])/;

function achMethod(given: PayoutMethodInput): AchMethod {
  const routing = given.routing_number!.replace(/[\s-]/g, '');
  if (!/^\d{9}$/.test(routing)) throw invalidField('routing_number', 'must be 9 digits');
  if (!routingNumberValidity(routing).isValid) throw invalidField('routing_number', 'has a check digit that does not match (ABA 3-7-1): check it for a typo');
  if (!ACH_ROUTING_PREFIX.test(routing))
    throw invalidField('routing_number', 'is not the routing number of a bank that takes ACH credits (it starts with 01-12, 21-32 or 61-72)');
  const account = given.account_number!.replace(/[\s-]/g, '');
  if (!/^\d{4,17}$/.test(account)) throw invalidField('account_number', 'must be 4 to 17 digits');
  return {
    type: 'ach',
    holder_name: holderName(given.holder_name!),
    routing_number: routing,
    account_number: account,
    account_type: given.account_type!,
    country: 'US',
    currency: 'USD',
  };
}

function paypalMethod(given: PayoutMethodInput): PaypalMethod {
  const method: PaypalMethod = { type: 'paypal', email: given.email!.toLowerCase() };
  if (given.holder_name !== undefined) method.holder_name = holderName(given.holder_name);
  return method;
}
