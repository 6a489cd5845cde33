import { describe, expect, it } from 'vitest';
import { bodyValidator, queryValidator } from './validation';

const schema = { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } };
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (e) {
    return e as { status: number; errors: Array<{ param: string }> };
  }
  throw new Error('accepted');
};

describe('format date-time', () => {
  it('takes what RFC 3339 and JavaScript both read, offsets and lower case included', () => {
    const body = bodyValidator(schema);
    for (const at of ['2026-03-02T09:30:00Z', '2026-03-02T09:30:00.123+05:30', '2026-03-02t09:30:00z', '2024-02-29T00:00:00Z'])
      expect(body({ at })).toEqual({ at });
  });

  it('refuses a leap second (RFC 3339 has it, Date cannot read it) and impossible days, 400 naming the field, in bodies and queries', () => {
    const body = bodyValidator(schema);
    const query = queryValidator(schema);
    for (const at of ['2026-12-31T23:59:60Z', '2026-06-30T23:59:60+00:00', '2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z']) {
      expect(refusal(() => body({ at }))).toMatchObject({ status: 400, errors: [{ param: 'at' }] });
      expect(refusal(() => query({ at }))).toMatchObject({ status: 400, errors: [{ param: 'at' }] });
    }
  });
});
