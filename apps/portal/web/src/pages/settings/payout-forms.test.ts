import { describe, expect, it } from 'vitest';
import { ApiError, isApiError } from '../../api/client';
import { errorsFromFailure } from '../../lib/validation';
import { EMPTY_METHOD, METHOD_LABELS, methodOf, onMethodFields, settingsChangeOf } from './payout-forms';

const FIELDS = Object.keys(METHOD_LABELS);

describe('a payout method from the form', () => {
  it('sends a bank account’s IBAN and BIC trimmed, spaces inside kept for the API to read', () => {
    expect(methodOf({ ...EMPTY_METHOD, holder_name: ' Ana Pérez ', iban: ' DE89 3704 0044 0532 0130 00 ', bic: 'COBADEFFXXX ' })).toEqual({
      type: 'iban',
      holder_name: 'Ana Pérez',
      iban: 'DE89 3704 0044 0532 0130 00',
      bic: 'COBADEFFXXX',
    });
  });

  it('sends a US account as checking unless savings is chosen, and PayPal with a holder only when given', () => {
    expect(methodOf({ ...EMPTY_METHOD, type: 'ach', holder_name: 'Ana', routing_number: '011000015', account_number: '123456789' })).toEqual({
      type: 'ach',
      holder_name: 'Ana',
      routing_number: '011000015',
      account_number: '123456789',
      account_type: 'checking',
    });
    expect(methodOf({ ...EMPTY_METHOD, type: 'ach', holder_name: 'Ana', routing_number: '1', account_number: '2', account_type: 'savings' })).toMatchObject({
      account_type: 'savings',
    });
    expect(methodOf({ ...EMPTY_METHOD, type: 'paypal', email: 'ana@example.com' })).toEqual({ type: 'paypal', email: 'ana@example.com' });
  });

  it('names each missing field of the chosen method under that field', () => {
    const missing = methodOf({ ...EMPTY_METHOD, holder_name: 'Ana', iban: '   ' });
    expect(isApiError(missing)).toBe(true);
    expect(errorsFromFailure(missing, FIELDS).fields).toEqual({ iban: 'Is required.', bic: 'Is required.' });
    expect(errorsFromFailure(methodOf({ ...EMPTY_METHOD, type: 'paypal' }), FIELDS).fields).toEqual({ email: 'Is required.' });
  });

  it('shows the API’s word on an invalid IBAN under the IBAN field, whether it names method.iban or iban', () => {
    for (const param of ['body.method.iban', 'method.iban', 'iban']) {
      const refused = new ApiError({
        status: 400,
        code: 'invalid_parameter',
        detail: "Invalid field 'iban': has a wrong check digit.",
        errors: [{ param, detail: 'has 2 check digits that do not match the rest of the IBAN' }],
      });
      expect(errorsFromFailure(onMethodFields(refused), FIELDS).fields).toEqual({ iban: 'Has 2 check digits that do not match the rest of the IBAN.' });
    }
    const offline = new Error('offline');
    expect(onMethodFields(offline)).toBe(offline);
  });
});

describe('currency, threshold and schedule', () => {
  const stored = { currency: 'EUR', threshold: '50.00', schedule: 'monthly' as const };

  it('sends only what changed', () => {
    expect(settingsChangeOf(stored, { currency: 'EUR', threshold: '50.00', schedule: 'monthly' })).toEqual({});
    expect(settingsChangeOf(stored, { currency: 'GBP', threshold: ' 75 ', schedule: 'on_request' })).toEqual({
      currency: 'GBP',
      threshold: '75',
      schedule: 'on_request',
    });
  });

  it('refuses a threshold that is not an amount (a comma, a third decimal, a sign) on the threshold field', () => {
    for (const threshold of ['50,00', '50.005', '-5', 'fifty', '1e3']) {
      const e = settingsChangeOf(stored, { ...stored, threshold });
      expect(errorsFromFailure(e, ['currency', 'threshold', 'schedule']).fields).toEqual({ threshold: 'Must be an amount like 50 or 50.00.' });
    }
    expect(settingsChangeOf(stored, { ...stored, threshold: '123456789.99' })).toEqual({ threshold: '123456789.99' });
  });
});
