import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiryInputOf, instant } from './inquiry-form';

// The browser's zone, which a datetime-local input is read in: Berlin, for the change to summer time.
const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const EMPTY = { programId: '', orderId: '', occurredAt: '', amount: '', currency: 'EUR', clickId: '', note: '' };

describe('when the order was placed', () => {
  it('is read in the browser’s zone and sent as an instant, on both sides of the change to summer time', () => {
    expect(instant('2026-03-28T23:30')).toBe('2026-03-28T22:30:00.000Z');
    expect(instant('2026-03-29T03:30')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('is left out when empty or not a time', () => {
    expect(instant('')).toBeUndefined();
    expect(instant('yesterday')).toBeUndefined();
  });
});

describe('an inquiry from the form', () => {
  it('sends the amount as typed (a decimal string), the program as a number, every member trimmed', () => {
    expect(
      inquiryInputOf({
        programId: '1001',
        orderId: ' A-1001 ',
        occurredAt: '2026-03-29T03:30',
        amount: ' 89.90 ',
        currency: 'EUR',
        clickId: ' clk_1 ',
        note: ' paid by card ',
      }),
    ).toEqual({
      program_id: 1001,
      order_id: 'A-1001',
      occurred_at: '2026-03-29T01:30:00.000Z',
      amount: '89.90',
      currency: 'EUR',
      click_id: 'clk_1',
      note: 'paid by card',
    });
  });

  it('leaves out what is empty, so the API names each missing field', () => {
    expect(inquiryInputOf({ ...EMPTY, orderId: '   ', occurredAt: 'not a time' })).toEqual({ currency: 'EUR' });
  });
});
