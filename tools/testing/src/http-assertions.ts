import { expect } from 'vitest';
import type { Response } from 'supertest';

/** The one error body, with X-Request-Id matching request_id and the four RateLimit headers. */
export function expectErrorShape(res: Response, status: number, code?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.detail.length).toBeGreaterThan(0);
  if (code) expect(res.body.code).toBe(code);
  else expect(res.body.code).toMatch(/^[a-z_]+$/);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  expectStandardHeaders(res);
}

export function expectStandardHeaders(res: Response): void {
  expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) expect(res.headers[h], h).toBeDefined();
}
