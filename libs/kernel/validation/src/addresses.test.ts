import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './addresses';
import { publicUrlProblem } from './public-url';

describe('public addresses', () => {
  it('refuses loopback, private, link-local, shared, multicast, reserved and documentation ranges, IPv4 and IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '64:ff9b::7f00:1',
    ]) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
  });

  it('sees through IPv4-mapped and -compatible IPv6 forms', () => {
    for (const a of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:192.168.0.1', '::127.0.0.1'])
      expect(isForbiddenAddress(a), a).toBe(true);
    expect(isForbiddenAddress('::ffff:93.184.216.34')).toBe(false);
  });

  it('allows public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e'])
      expect(isForbiddenAddress(a), a).toBe(false);
  });
});

describe("public http(s) URLs (a creator's site)", () => {
  it('accepts http and https on public names and addresses', () => {
    for (const u of ['https://my-blog.example/path?x=1', 'http://93.184.216.34/', 'https://sub.domain.co.uk', 'https://xn--bcher-kva.de/'])
      expect(publicUrlProblem(u), u).toBeUndefined();
  });

  it('refuses other schemes, credentials, loopback, private and single-label hosts', () => {
    for (const [u, why] of [
      ['ftp://my-blog.example/', /http or https/],
      ['javascript:alert(1)', /http or https/],
      ['not a url', /http or https/],
      ['https://user:pw@my-blog.example/', /credentials/],
      ['http://localhost:3000/', /public host/],
      ['http://127.0.0.1/', /public host/],
      ['http://[::1]/', /public host/],
      ['http://10.0.0.8/', /public host/],
      ['http://169.254.169.254/latest', /public host/],
      ['http://intranet/', /public host/],
      ['http://printer.local/', /public host/],
      ['http://db.internal/', /public host/],
    ] as const)
      expect(publicUrlProblem(u), u).toMatch(why);
  });
});
