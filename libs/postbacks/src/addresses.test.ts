import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './addresses';
import { newSigningSecret, open, seal } from './secret-box';
import { validateTarget } from './target';

describe('postback target addresses', () => {
  it('refuses loopback, private, link-local, shared, multicast, reserved and documentation ranges, IPv4 and IPv6', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '240.0.0.1', '255.255.255.255', '192.0.2.1', '198.18.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1', '64:ff9b::7f00:1']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
  });

  it('sees through IPv4-mapped and -compatible IPv6 forms', () => {
    for (const a of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:192.168.0.1', '::127.0.0.1']) expect(isForbiddenAddress(a), a).toBe(true);
    expect(isForbiddenAddress('::ffff:93.184.216.34')).toBe(false);
  });

  it('allows public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e']) expect(isForbiddenAddress(a), a).toBe(false);
  });
});

describe('postback target URLs', () => {
  const strict = { allowInsecure: false, resolve: async (host: string) => (host === 'hooks.example.com' ? ['93.184.216.34'] : host === 'rebind.example.com' ? ['93.184.216.34', '10.0.0.5'] : []) };

  it('accepts https to a public host with the documented macros', async () => {
    await expect(validateTarget('https://hooks.example.com/cb?s={subid}&c={commission}&cur={currency}&e={event}&id={conversion_id}', strict)).resolves.toMatch(/^https:/);
    await expect(validateTarget('https://93.184.216.34/cb', strict)).resolves.toBeTruthy();
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

  it('allows http and loopback when insecure targets are allowed (development and tests)', async () => {
    await expect(validateTarget('http://127.0.0.1:9999/cb?e={event}', { allowInsecure: true })).resolves.toBeTruthy();
    await expect(validateTarget('http://127.0.0.1/cb?x={nope}', { allowInsecure: true })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});

describe('signing secrets at rest', () => {
  it('are whsec_ + 32 random bytes, sealed with AES-GCM so a wrong key or altered data fails', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const key = Buffer.alloc(32, 9);
    const sealed = seal(key, secret);
    expect(JSON.stringify(sealed)).not.toContain(secret.slice(6));
    expect(open(key, sealed)).toBe(secret);
    expect(() => open(Buffer.alloc(32, 8), sealed)).toThrow();
    expect(() => open(key, { ...sealed, data: Buffer.from('x'.repeat(40)).toString('base64') })).toThrow();
  });
});
