/** The rules of an inquiry's order that need no data, and the one inquiry per (publisher, merchant, order). */
import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { bodyValidator } from '@cw/validation';
import { checkInquiryOrder, inquiryId } from './inquiries.service';
import { FILE_INQUIRY_INPUT, INQUIRY_MAX_AGE_DAYS } from './inquiry.schemas';

const NOW = new Date('2026-06-15T12:00:00Z');
const DAY = 86_400_000;
const order = (extra: Partial<{ occurred_at: string; amount: string; currency: string }> = {}) => ({
  occurred_at: '2026-06-14T10:00:00Z',
  amount: '89.90',
  currency: 'EUR',
  ...extra,
});
function refusal(fn: () => unknown): { code: string; param: string | undefined } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return { code: (e as ApiError).code, param: (e as ApiError).errors?.[0]?.param };
  }
  throw new Error('not refused');
}

describe('the order of an inquiry', () => {
  it('takes an order of yesterday with a positive amount in the currency’s decimals', () => {
    expect(checkInquiryOrder(order(), NOW).toISOString()).toBe('2026-06-14T10:00:00.000Z');
    expect(checkInquiryOrder(order({ amount: '1500', currency: 'JPY' }), NOW)).toBeInstanceOf(Date);
    expect(checkInquiryOrder(order({ amount: '12.345', currency: 'KWD' }), NOW)).toBeInstanceOf(Date);
  });

  it('refuses an order in the future (beyond clock skew) or older than the limit, naming occurred_at', () => {
    expect(refusal(() => checkInquiryOrder(order({ occurred_at: new Date(NOW.getTime() + 3_600_000).toISOString() }), NOW))).toEqual({
      code: 'invalid_parameter',
      param: 'occurred_at',
    });
    expect(checkInquiryOrder(order({ occurred_at: new Date(NOW.getTime() + 60_000).toISOString() }), NOW)).toBeInstanceOf(Date);
    const tooOld = new Date(NOW.getTime() - (INQUIRY_MAX_AGE_DAYS + 1) * DAY).toISOString();
    expect(refusal(() => checkInquiryOrder(order({ occurred_at: tooOld }), NOW)).param).toBe('occurred_at');
    const justInside = new Date(NOW.getTime() - (INQUIRY_MAX_AGE_DAYS - 1) * DAY).toISOString();
    expect(checkInquiryOrder(order({ occurred_at: justInside }), NOW)).toBeInstanceOf(Date);
  });

  it('refuses a zero amount and more decimals than the currency has, naming amount', () => {
    expect(refusal(() => checkInquiryOrder(order({ amount: '0' }), NOW)).param).toBe('amount');
    expect(refusal(() => checkInquiryOrder(order({ amount: '0.00' }), NOW)).param).toBe('amount');
    expect(refusal(() => checkInquiryOrder(order({ amount: '10.5', currency: 'JPY' }), NOW)).param).toBe('amount');
    expect(refusal(() => checkInquiryOrder(order({ amount: '1.999' }), NOW)).param).toBe('amount');
  });
});

describe('the filing input', () => {
  const check = bodyValidator(FILE_INQUIRY_INPUT);
  const valid = { program_id: 1001, order_id: 'A-1', occurred_at: '2026-06-14T10:00:00Z', amount: '10.00', currency: 'EUR' };
  const param = (body: unknown) => {
    try {
      check(body);
    } catch (e) {
      return (e as ApiError).errors?.[0]?.param;
    }
    return undefined;
  };

  it('takes the required fields, an optional signed-layout click id and a note', () => {
    expect(param(valid)).toBeUndefined();
    expect(param({ ...valid, click_id: 'clk_AQGiT_iRsgBlOBpc', note: 'Bought on the phone, paid by invoice.' })).toBeUndefined();
  });

  it('names each bad field', () => {
    expect(param({ ...valid, amount: '-1' })).toBe('amount');
    expect(param({ ...valid, amount: 10 })).toBe('amount');
    expect(param({ ...valid, currency: 'eur' })).toBe('currency');
    expect(param({ ...valid, click_id: 'not-a-click' })).toBe('click_id');
    expect(param({ ...valid, note: 'a\u202Eb' })).toBe('note');
    expect(param({ ...valid, note: 'x'.repeat(1001) })).toBe('note');
    expect(param({ ...valid, occurred_at: 'yesterday' })).toBe('occurred_at');
    expect(param({ ...valid, program_id: '1001x' })).toBe('program_id');
    expect(param({ ...valid, publisher_id: 'pub_1' })).toBe('publisher_id');
  });
});

describe('inquiry ids', () => {
  it('are one per (publisher, merchant, order id), unrelated across publishers', () => {
    expect(inquiryId('pub_a', 501, 'A-1')).toBe(inquiryId('pub_a', 501, 'A-1'));
    expect(inquiryId('pub_a', 501, 'A-1')).not.toBe(inquiryId('pub_b', 501, 'A-1'));
    expect(inquiryId('pub_a', 501, 'A-1')).not.toBe(inquiryId('pub_a', 502, 'A-1'));
    expect(inquiryId('pub_a', 501, 'A-1')).toMatch(/^inq_[A-Za-z0-9_-]{22}$/);
  });
});
