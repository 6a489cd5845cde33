import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUS_SCHEMA } from './account.schemas';

const valid = new Ajv({ strict: false }).compile(PAYMENT_STATUS_SCHEMA);
const status = (amount: string, totalUsd = '12.00') => ({
  account_id: 'pub_x',
  currency_note: 'USD totals use indicative exchange rates.',
  approved_unpaid: { by_currency: [{ currency: 'X', amount }], total_usd: totalUsd },
  pending_review: { window_days: 90, by_currency: [], total_usd: '0.00' },
  next_payment: {},
  payment_method: { type: 'none' },
});

describe('the payment status schema', () => {
  it("takes amounts at every currency's minor unit and USD totals at two decimals", () => {
    for (const amount of ['1290', '12.90', '-4.633', '0.0001']) expect(valid(status(amount)), amount).toBe(true);
    for (const amount of ['12.', '1e3', '12.34567', ' 1']) expect(valid(status(amount)), amount).toBe(false);
    expect(valid(status('12.90', '12.9'))).toBe(false);
  });
});
