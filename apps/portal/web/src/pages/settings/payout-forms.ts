/**
 * The payout settings' forms as data (apart from their components): a method's request from the
 * form's strings (or the fields missing, as the API would name them), the API's errors placed on
 * the method's fields, and the change to currency, threshold and schedule (or why the threshold
 * is not an amount).
 */
import { ApiError, isApiError, missingFieldsError } from '../../api/client';
import type { PayoutMethodInput, PayoutSettings, PayoutSettingsInput } from '../../api/payouts';

export const METHOD_LABELS = {
  type: 'Method',
  holder_name: 'Account holder',
  iban: 'IBAN',
  bic: 'BIC',
  routing_number: 'Routing number',
  account_number: 'Account number',
  account_type: 'Account type',
  email: 'PayPal e-mail',
};
export type MethodField = keyof typeof METHOD_LABELS;

export const EMPTY_METHOD: Record<MethodField, string> = {
  type: 'iban',
  holder_name: '',
  iban: '',
  bic: '',
  routing_number: '',
  account_number: '',
  account_type: 'checking',
  email: '',
};

const REQUIRED: Record<string, MethodField[]> = {
  iban: ['holder_name', 'iban', 'bic'],
  ach: ['holder_name', 'routing_number', 'account_number'],
  paypal: ['email'],
};

/** The API names a method's fields `method.iban` (schema) or `iban` (checks): both land on the field. */
export function onMethodFields(err: unknown): unknown {
  if (!isApiError(err)) return err;
  return new ApiError({ ...err, errors: err.errors.map((e) => ({ ...e, param: e.param.replace(/^(body\.)?method\./, '') })) });
}

/** The method the form describes, trimmed; an ApiError naming each missing field otherwise. */
export function methodOf(draft: Record<MethodField, string>): PayoutMethodInput | ApiError {
  const missing = (REQUIRED[draft.type] ?? []).filter((k) => !draft[k].trim());
  if (missing.length) {
    return missingFieldsError(missing);
  }
  const t = (k: MethodField) => draft[k].trim();
  return draft.type === 'iban'
    ? { type: 'iban', holder_name: t('holder_name'), iban: t('iban'), bic: t('bic') }
    : draft.type === 'ach'
      ? {
          type: 'ach',
          holder_name: t('holder_name'),
          routing_number: t('routing_number'),
          account_number: t('account_number'),
          account_type: draft.account_type === 'savings' ? 'savings' : 'checking',
        }
      : { type: 'paypal', email: t('email'), ...(t('holder_name') ? { holder_name: t('holder_name') } : {}) };
}

/** Only what changed from the stored settings; an ApiError on `threshold` when it is not an amount. */
export function settingsChangeOf(
  settings: Pick<PayoutSettings, 'currency' | 'threshold' | 'schedule'>,
  values: { currency: string; threshold: string; schedule: string },
): PayoutSettingsInput | ApiError {
  const input: PayoutSettingsInput = {};
  if (values.currency !== settings.currency) input.currency = values.currency;
  if (values.threshold.trim() !== settings.threshold) input.threshold = values.threshold.trim();
  if (values.schedule !== settings.schedule) input.schedule = values.schedule === 'on_request' ? 'on_request' : 'monthly';
  if (input.threshold !== undefined && !/^[0-9]{1,9}(\.[0-9]{1,2})?$/.test(input.threshold)) {
    return new ApiError({
      status: 400,
      code: 'invalid_parameter',
      detail: 'The threshold is not an amount.',
      errors: [{ param: 'threshold', detail: 'must be an amount like 50 or 50.00' }],
    });
  }
  return input;
}
