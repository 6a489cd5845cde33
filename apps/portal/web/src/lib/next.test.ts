import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { safeNext, signInHref } from './next';

// The page's origin, as the browser's window gives it.
beforeAll(() => vi.stubGlobal('window', { location: { origin: 'https://portal.example' } }));
afterAll(() => vi.unstubAllGlobals());

describe('where sign-in goes afterwards', () => {
  it('returns to the page the person came from, with its query and fragment', () => {
    expect(safeNext('/conversions?status=approved#latest')).toBe('/conversions?status=approved#latest');
    expect(safeNext('/settings/keys')).toBe('/settings/keys');
  });

  it('never leaves the portal: another site, a protocol-relative or backslash address goes to the dashboard', () => {
    expect(safeNext('https://evil.example/')).toBe('/dashboard');
    expect(safeNext('//evil.example/path')).toBe('/dashboard');
    expect(safeNext('/\\evil.example')).toBe('/dashboard');
    expect(safeNext('javascript:alert(1)')).toBe('/dashboard');
  });

  it('never goes to the API or back to sign-in', () => {
    expect(safeNext('/portal/api/session')).toBe('/dashboard');
    expect(safeNext('/signin')).toBe('/dashboard');
    expect(safeNext('/signin?next=/x')).toBe('/dashboard');
  });

  it('uses the fallback given when there is no next', () => {
    expect(safeNext(null)).toBe('/dashboard');
    expect(safeNext('', '/claim')).toBe('/claim');
  });

  it('brings the person back after signing in, the path encoded', () => {
    expect(signInHref('/conversions?status=approved&page_size=25')).toBe('/signin?next=%2Fconversions%3Fstatus%3Dapproved%26page_size%3D25');
  });
});
