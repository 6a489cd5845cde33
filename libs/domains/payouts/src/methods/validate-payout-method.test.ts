import { describe, expect, it } from 'vitest';
import { clearFields } from './payout-method';
import { validatePayoutMethod } from './validate-payout-method';

const bank = (iban: string, bic = 'DEUTDEFF') => ({ type: 'iban', holder_name: 'Maria Schmidt', iban, bic });
const ach = (routing_number: string, account_number = '000123456789') => ({
  type: 'ach',
  holder_name: 'Trail Notes LLC',
  routing_number,
  account_number,
  account_type: 'checking',
});

/** The ApiError a refused input throws: 400 invalid_parameter naming the field, its message matching `detail`. */
function refused(input: unknown, param: string, detail: RegExp) {
  expect(() => validatePayoutMethod(input)).toThrow(
    expect.objectContaining({ status: 400, code: 'invalid_parameter', errors: [{ param, detail: expect.stringMatching(detail) }] }),
  );
}

describe('bank accounts by IBAN and BIC', () => {
  it.each([
    ['DE', 'DE89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
    ['FR', 'fr14 2004 1010 0505 0001 3m02 606', 'FR1420041010050500013M02606'],
    ['NL', 'NL91-ABNA-0417-1643-00', 'NL91ABNA0417164300'],
    ['GB', 'gb29nwbk60161331926819', 'GB29NWBK60161331926819'],
  ])('takes a %s IBAN typed with spaces, dashes or lower case, and keeps it in electronic format', (country, typed, electronic) => {
    const method = validatePayoutMethod(bank(typed, 'deut de ff'));
    expect(clearFields(method)).toEqual({ type: 'iban', holder_name: 'Maria Schmidt', iban: electronic, bic: 'DEUTDEFF', country });
  });

  it.each([
    ['a DE IBAN with a wrong check digit', 'DE89370400440532013001', /check digits .*mod-97/],
    ['a DE IBAN one digit short', 'DE8937040044053201300', /has 21 characters where an IBAN of DE has 22/],
    ['an FR IBAN whose national RIB key is wrong', 'FR7630006000011234567890188', /check digits|national check digits/],
    ['an NL IBAN with a wrong check digit', 'NL91ABNA0417164301', /mod-97/],
    ['an NL IBAN one digit short', 'NL91ABNA041716430', /has 17 characters where an IBAN of NL has 18/],
    ['a GB IBAN with a wrong check digit', 'GB29NWBK60161331926818', /mod-97/],
    ['a GB IBAN whose bank code is digits', 'GB29123460161331926819', /form of an IBAN of GB/],
    ['a country that issues no IBAN', 'XX89370400440532013000', /country that issues IBANs \(XX does not\)/],
    ['letters where the check digits go', 'DEAA370400440532013000', /2 check digits/],
    ['a Swiss QR-IBAN (for QR-bills only)', 'CH4431999123000889012', /QR-IBAN/],
    ['punctuation', 'DE89.3704.0044.0532.0130.00', /letters and digits only/],
  ])('refuses %s, naming the iban field', (_what, iban, why) => refused(bank(iban), 'iban', why));

  it('takes BICs of 8 and 11 characters from any country, not only the IBAN’s (Jersey banks keep GB IBANs)', () => {
    for (const bic of ['DEUTDEFF', 'DEUTDEFF500', 'NWBKGB2L', 'ABNANL2A', 'BNPAFRPP', 'MIDLJESH'])
      expect(clearFields(validatePayoutMethod(bank('GB29NWBK60161331926819', bic.toLowerCase()))).bic, bic).toBe(bic);
  });

  it.each([
    ['7 characters', 'DEUTDEF', /8 or 11/],
    ['9 characters', 'DEUTDEFF5', /8 or 11/],
    ['10 characters', 'DEUTDEFF50', /8 or 11/],
    ['12 characters', 'DEUTDEFF5000', /8 or 11/],
    ['an unknown country', 'DEUTXXFF', /country code/],
    ['a digit in the bank code', '1EUTDEFF', /4 letters \(the bank\)/],
    ['a test BIC', 'DEUTDEF0', /test BIC/],
  ])('refuses a BIC of %s, naming the bic field', (_what, bic, why) => refused(bank('DE89370400440532013000', bic), 'bic', why));

  it("keeps the account's currency when given, and refuses one that is not ISO 4217", () => {
    expect(validatePayoutMethod({ ...bank('GB29NWBK60161331926819', 'NWBKGB2L'), currency: 'gbp' })).toMatchObject({ currency: 'GBP' });
    refused({ ...bank('GB29NWBK60161331926819', 'NWBKGB2L'), currency: 'XYZ' }, 'currency', /ISO 4217/);
  });
});

describe('US bank accounts for ACH', () => {
  it.each(['011000015', '021000021', '121000358', '026009593', '322271627', '267084131'])('takes the known routing number %s', (routing) => {
    expect(clearFields(validatePayoutMethod(ach(routing)))).toEqual({
      type: 'ach',
      holder_name: 'Trail Notes LLC',
      routing_number: routing,
      account_number: '000123456789',
      account_type: 'checking',
      country: 'US',
      currency: 'USD',
    });
  });

  it.each([
    ['a wrong check digit', '021000022', /check digit/],
    ['a made-up number', '123456789', /check digit/],
    ['8 digits', '02100002', /9 digits/],
    ['letters', '02100002A', /9 digits/],
    ['the all-zero number (checksum holds, no bank)', '000000000', /takes ACH credits/],
    ['a number outside the Federal Reserve ranges (checksum holds)', '500000005', /takes ACH credits/],
    ['a travelers-check number (checksum holds)', '800000006', /takes ACH credits/],
  ])('refuses a routing number with %s, naming the routing_number field', (_what, routing, why) => refused(ach(routing), 'routing_number', why));

  it('takes account numbers of 4 to 17 digits, spaces and dashes dropped, and refuses others', () => {
    expect(validatePayoutMethod(ach('021000021', '1234'))).toMatchObject({ account_number: '1234' });
    expect(validatePayoutMethod(ach('021000021', '1234-5678 9012 34567'))).toMatchObject({ account_number: '12345678901234567' });
    for (const bad of ['123', '123456789012345678', '12345A78']) refused(ach('021000021', bad), 'account_number', /4 to 17 digits/);
  });

  it('needs checking or savings', () => {
    expect(validatePayoutMethod({ ...ach('021000021'), account_type: 'savings' })).toMatchObject({ account_type: 'savings' });
    refused({ ...ach('021000021'), account_type: 'brokerage' }, 'account_type', /checking, savings/);
    const { account_type: _none, ...without } = ach('021000021');
    refused(without, 'account_type', /required/);
  });
});

describe('PayPal', () => {
  it('takes an e-mail address, kept in lower case, the holder name optional', () => {
    expect(clearFields(validatePayoutMethod({ type: 'paypal', email: 'Maria.Schmidt@Example.COM' }))).toEqual({
      type: 'paypal',
      email: 'maria.schmidt@example.com',
    });
  });

  it('refuses what is not an e-mail address, naming the email field', () => {
    refused({ type: 'paypal', email: 'maria at example.com' }, 'email', /email/);
    refused({ type: 'paypal' }, 'email', /required/);
  });
});

describe('every payout method', () => {
  it('refuses a field of another type, naming it', () => {
    refused({ ...bank('DE89370400440532013000'), routing_number: '021000021' }, 'routing_number', /not a field of a iban payout method/);
    refused({ type: 'paypal', email: 'maria@example.com', iban: 'DE89370400440532013000' }, 'iban', /not a field of a paypal/);
  });

  it('refuses an unknown type, unknown fields and a missing holder name', () => {
    refused({ type: 'cheque', holder_name: 'Maria' }, 'type', /iban, ach, paypal/);
    expect(() => validatePayoutMethod({ type: 'paypal', email: 'maria@example.com', note: 'x' })).toThrow(
      expect.objectContaining({ code: 'unknown_parameter', errors: [{ param: 'note', detail: 'is not a known parameter' }] }),
    );
    const { holder_name: _none, ...without } = bank('DE89370400440532013000');
    refused(without, 'holder_name', /required/);
    refused({ ...bank('DE89370400440532013000'), holder_name: '   ' }, 'holder_name', /blank/);
  });

  it.each([
    ['a newline', 'Maria\nBcc: x@evil.example'],
    ['a right-to-left override', 'Maria \u202eztimhcS'],
    ['a NUL', 'Maria\u0000'],
  ])('refuses a holder name with %s (the display-text rule)', (_what, holder_name) => {
    refused({ ...bank('DE89370400440532013000'), holder_name }, 'holder_name', /control characters/);
  });

  it('refuses what is not an object with a 400, never a crash', () => {
    for (const body of [null, 'DE89370400440532013000', 42, [], { type: 42 }, { type: 'iban', iban: ['DE89'], bic: 'DEUTDEFF', holder_name: 'M' }])
      expect(() => validatePayoutMethod(body), JSON.stringify(body)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
