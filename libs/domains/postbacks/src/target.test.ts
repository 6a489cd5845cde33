import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { newSigningSecret, open, seal, sealedWithOlderKey } from './secret-box';
import { validateTarget } from './target';

describe('postback target URLs', () => {
  const strict = {
    allowInsecure: false,
    resolve: async (host: string) => (host === 'hooks.example.com' ? ['93.184.216.34'] : host === 'rebind.example.com' ? ['93.184.216.34', '10.0.0.5'] : []),
  };

  it('accepts https to a public host with the documented macros', async () => {
    await expect(validateTarget('https://hooks.example.com/cb?s={subid}&c={commission}&cur={currency}&e={event}&id={conversion_id}', strict)).resolves.toMatch(
      /^https:/,
    );
    await expect(validateTarget('https://93.184.216.34/cb', strict)).resolves.toBeTruthy();
  });

  it('open under every key of the ring after a rotation; new seals use the newest key', () => {
    const secret = newSigningSecret();
    const before = keyRing(Buffer.alloc(32, 1));
    const sealedBefore = seal(before, secret);
    const after = keyRing(Buffer.alloc(32, 1), [{ id: 'k2026', key: Buffer.alloc(32, 2) }]);
    expect(open(after, sealedBefore)).toBe(secret);
    expect(sealedWithOlderKey(after, sealedBefore)).toBe(true);
    const resealed = seal(after, open(after, sealedBefore));
    expect(resealed.kid).toBe('k2026');
    expect(sealedWithOlderKey(after, resealed)).toBe(false);
    expect(open(after, resealed)).toBe(secret);
    expect(() => open(before, resealed)).toThrow(/k2026/);
  });

  it('refuses http, credentials, unknown macros, private hosts and hosts that resolve to any private address', async () => {
    for (const [url, why] of [
      ['http://hooks.example.com/cb', /https/],
      ['https://user:pw@hooks.example.com/cb', /credentials/],
      ['https://hooks.example.com/cb?x={payout}', /unknown macro \{payout\}/],
      ['https://hooks.example.com/cb?x={subid', /brace/],
      ['https://127.0.0.1/cb', /public address/],
      ['https://[::ffff:10.0.0.1]/cb', /public address/],
      ['https://rebind.example.com/cb', /public address/],
      ['https://nowhere.example.com/cb', /does not resolve/],
      ['not a url', /absolute URL/],
    ] as const) {
      await expect(validateTarget(url, strict), url).rejects.toMatchObject({ code: 'invalid_parameter', detail: expect.stringMatching(why) });
    }
  });

  it('refuses every spelling of a loopback or private address, over http or https, when insecure targets are not allowed', async () => {
    const spellings = [
      '127.0.0.1',
      'localhost',
      '[::1]',
      '2130706433',
      '0x7f000001',
      '127.1',
      '0177.0.0.1',
      '[::ffff:127.0.0.1]',
      '0',
      '10.0.0.1',
      '169.254.169.254',
    ];
    const local = { allowInsecure: false, resolve: async (host: string) => (host === 'localhost' ? ['127.0.0.1', '::1'] : []) };
    for (const host of spellings)
      for (const scheme of ['http', 'https'])
        await expect(validateTarget(`${scheme}://${host}:8080/cb`, local), `${scheme}://${host}`).rejects.toMatchObject({
          code: 'invalid_parameter',
          errors: [{ param: 'url' }],
        });
  });

  it('allows http and loopback when insecure targets are allowed (development and tests)', async () => {
    await expect(validateTarget('http://127.0.0.1:9999/cb?e={event}', { allowInsecure: true })).resolves.toBeTruthy();
    await expect(validateTarget('http://127.0.0.1/cb?x={nope}', { allowInsecure: true })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});

describe('signing secrets at rest', () => {
  it('are whsec_ + 32 random bytes, sealed with AES-GCM so a wrong key or altered data fails', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const key = keyRing(Buffer.alloc(32, 9));
    const sealed = seal(key, secret);
    expect(JSON.stringify(sealed)).not.toContain(secret.slice(6));
    expect(open(key, sealed)).toBe(secret);
    expect(() => open(keyRing(Buffer.alloc(32, 8)), sealed)).toThrow();
    expect(() => open(key, { ...sealed, data: Buffer.from('x'.repeat(40)).toString('base64') })).toThrow();
  });
});
