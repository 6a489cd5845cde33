import { describe, expect, it } from 'vitest';
import { CountryLookup, readFixture } from './visitor-country';

describe('visitor country', () => {
  const lookup = new CountryLookup({ fixture: readFixture('{"203.0.113.0/25": "DE", "203.0.113.200": "FR", "2001:db8::7": "JP"}') });

  it('places fixture addresses and networks before the database', () => {
    expect(lookup.country('203.0.113.7')).toBe('DE');
    expect(lookup.country('::ffff:203.0.113.9')).toBe('DE');
    expect(lookup.country('203.0.113.200')).toBe('FR');
    expect(lookup.country('2001:db8::7')).toBe('JP');
  });

  it("places public addresses with the package's database, IPv4 and IPv6", () => {
    // Long-standing allocations: Hetzner (DE) and Google's public resolver (US).
    expect(lookup.country('5.9.0.1')).toBe('DE');
    expect(lookup.country('2a01:4f8::1')).toBe('DE');
    expect(lookup.country('8.8.8.8')).toBe('US');
  });

  it('places no private, loopback or empty address', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '::1', '', 'not-an-address']) expect(lookup.country(ip)).toBeUndefined();
  });

  it('refuses a fixture that is not address to country', () => {
    expect(() => readFixture('{"203.0.113.0/40": "DE"}')).toThrow(/not an address/);
    expect(() => readFixture('{"203.0.113.1": "de"}')).toThrow(/upper-case/);
    expect(() => readFixture('["DE"]')).toThrow(/JSON object/);
  });
});
