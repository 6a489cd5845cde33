import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_STATUS, errorBody } from './index';

describe('ApiError', () => {
  it('takes its status from the code table', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(new ApiError({ code: code as keyof typeof ERROR_STATUS, detail: 'x' }).status).toBe(status);
    }
  });

  it('renders detail, code and request id, and per-parameter errors only when present', () => {
    const plain = errorBody(new ApiError({ code: 'not_found', detail: 'Nope.' }), 'req_1');
    expect(plain).toEqual({ detail: 'Nope.', code: 'not_found', request_id: 'req_1' });
    const withParams = errorBody(new ApiError({ code: 'invalid_parameter', detail: 'Bad.', errors: [{ param: 'limit', detail: 'too big' }] }), 'r');
    expect(withParams.errors).toEqual([{ param: 'limit', detail: 'too big' }]);
  });
});
