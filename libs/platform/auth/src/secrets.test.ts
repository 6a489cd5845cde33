import { describe, expect, it } from 'vitest';
import { displayPrefix, generateSecret, hashesEqual, hashSecret, looksLikeSecret } from './secrets';

describe('credential secrets', () => {
  it('shows only the kind and 6 random characters, also when the random part holds underscores', () => {
    expect(displayPrefix('live_ab_cd_efghijklmnopqrstuvwxyz0123456789ABCDEFG')).toBe('live_ab_cd_…');
    expect(displayPrefix('read_only_x_yz012345678901234567890123456789012345')).toBe('read_only_x_yz01…');
    expect(displayPrefix('rpt_______abcdefghijklmnopqrstuvwxyz0123456789ABC')).toBe('rpt_______…');
    for (let i = 0; i < 200; i++) {
      const secret = generateSecret('sandbox');
      expect(displayPrefix(secret)).toBe(`${secret.slice(0, 'sandbox_'.length + 6)}…`);
    }
  });

  it('generates 32 random bytes after the kind, stored as a SHA-256 hash compared in constant time', () => {
    const a = generateSecret('live');
    expect(a).toMatch(/^live_[A-Za-z0-9_-]{43}$/);
    expect(generateSecret('live')).not.toBe(a);
    expect(looksLikeSecret(a)).toBe(true);
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hashSecret(a), hashSecret(a))).toBe(true);
    expect(hashesEqual(hashSecret(a), hashSecret(`${a}x`))).toBe(false);
  });
});
