import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import HOSTING from './data/hosting-networks.json';
import { AsnTable, HOSTING_NETWORKS, hostingAsns, ipv6Words, NetworkLookup, parseIpv6, readAsnFixture } from './visitor-network';

/** A few real rows of the package (test/fixtures/asn): AWS, Hetzner, Google, Cloudflare, Comcast, Deutsche Telekom. */
const FIXTURE_TABLE = resolve(import.meta.dirname, '../test/fixtures/asn');
const n4 = (ip: string) => ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);

describe('the AS table (IPv4 and IPv6, binary search over typed arrays)', () => {
  const table = AsnTable.load(FIXTURE_TABLE);

  it('answers the AS and organisation of addresses inside a range, IPv4, IPv6 and IPv4-mapped', () => {
    expect(table.size).toEqual({ v4: 6, v6: 4 });
    expect(table.lookup('3.5.140.2')).toEqual({ asn: 16509, organisation: 'Amazon.com, Inc.' });
    expect(table.lookup('5.9.10.1')).toEqual({ asn: 24940, organisation: 'Hetzner Online GmbH' });
    expect(table.lookup('::ffff:8.8.8.8')).toEqual({ asn: 15169, organisation: 'Google LLC' });
    expect(table.lookup('80.130.0.1')).toEqual({ asn: 3320, organisation: 'Deutsche Telekom AG' });
    expect(table.lookup('2a01:4f8:c0c:1234::1')).toEqual({ asn: 24940, organisation: 'Hetzner Online GmbH' });
    expect(table.lookup('2600:1f18:4000::5')?.asn).toBe(14618);
    expect(table.lookup('2003:e0:1::77')?.asn).toBe(3320);
    // A quoted organisation with a comma.
    expect(table.lookup('73.1.2.3')?.organisation).toBe('Comcast Cable Communications, LLC');
  });

  it('includes both ends of a range and nothing next to it', () => {
    // AWS row 50667520-52297727 (3.5.32.0 - 3.29.255.255), Cloudflare 16777216-16777471 (1.0.0.0/24).
    expect(table.asn4(50667520)).toBe(16509);
    expect(table.asn4(52297727)).toBe(16509);
    expect(table.asn4(50667519)).toBe(0);
    expect(table.asn4(52297728)).toBe(0);
    expect(table.asn4(16777216)).toBe(13335);
    expect(table.asn4(16777215)).toBe(0);
    expect(table.asn4(n4('1.0.1.0'))).toBe(0);
    expect(table.asn4(0)).toBe(0);
    expect(table.asn4(0xffffffff)).toBe(0);
    // Hetzner's IPv6 row: 2a01:4f8:: - 2a01:4f9:ffff:ffff:ffff:ffff:ffff:ffff.
    expect(table.asn6(ipv6Words('2a01:4f8::'))).toBe(24940);
    expect(table.asn6(ipv6Words('2a01:4f9:ffff:ffff:ffff:ffff:ffff:ffff'))).toBe(24940);
    expect(table.asn6(ipv6Words('2a01:4f7:ffff:ffff:ffff:ffff:ffff:ffff'))).toBe(0);
    expect(table.asn6(ipv6Words('2a01:4fa::'))).toBe(0);
    expect(table.asn6(ipv6Words('::'))).toBe(0);
    expect(table.asn6(ipv6Words('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'))).toBe(0);
  });

  it('answers nothing for unknown, private, loopback or malformed addresses', () => {
    for (const ip of ['9.9.9.9', '10.0.0.1', '127.0.0.1', '::1', '2001:db8::1', '', 'not-an-address', '1.2.3', '1.2.3.256', '01234.1.1.1'])
      expect(table.lookup(ip), ip).toBeUndefined();
  });

  it('reads IPv6 text forms to the words the numeric rows hold', () => {
    expect([...ipv6Words('2a01:4f8::1')]).toEqual([0x2a0104f8, 0, 0, 1]);
    expect([...ipv6Words('::ffff:1.2.3.4')]).toEqual([0, 0, 0xffff, 0x01020304]);
    expect([...ipv6Words('1:2:3:4:5:6:7:8')]).toEqual([0x10002, 0x30004, 0x50006, 0x70008]);
    expect([...ipv6Words('1:2::7:8')]).toEqual([0x10002, 0, 0, 0x70008]);
    expect([...ipv6Words('FE80::ABCD')]).toEqual([0xfe800000, 0, 0, 0xabcd]);
    expect([...ipv6Words('1:2:3:4:5:6:7::')]).toEqual([0x10002, 0x30004, 0x50006, 0x70000]);
    for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', '1:', ':1', '12345::', 'fe80::1%eth0', '::ffff:1a.2.3.4', '1:2:3:4:5:6:7', 'g::1', ':::'])
      expect(parseIpv6(bad, new Uint32Array(4)), bad).toBe(false);
    // Any address, in the compressed form the URL parser writes it, reads back to its groups.
    for (let i = 0; i < 500; i++) {
      const g = Array.from({ length: 8 }, (_, k) => (k >= i % 8 && k < (i % 8) + (i % 5) ? 0 : ((i + 1) * 2654435761 + k * 40503) >>> 16));
      const text = new URL(`http://[${g.map((x) => x.toString(16)).join(':')}]`).hostname.slice(1, -1);
      expect([...ipv6Words(text)], text).toEqual([0, 2, 4, 6].map((k) => ((g[k]! << 16) | g[k + 1]!) >>> 0));
    }
    // The decimal parser agrees with BigInt on the fixture's rows.
    for (const line of readFileSync(join(FIXTURE_TABLE, 'asn-ipv6-num.csv'), 'utf8').trim().split('\n')) {
      const start = BigInt(line.split(',')[0]!);
      const words = [96n, 64n, 32n, 0n].map((s) => Number((start >> s) & 0xffffffffn));
      const text = words.map((w) => `${(w >>> 16).toString(16)}:${(w & 0xffff).toString(16)}`).join(':');
      expect(table.asn6(ipv6Words(text))).toBe(Number(line.split(',')[2]));
    }
  });

  it('loads in slices (loadAsync) to the same answers', async () => {
    const sliced = await AsnTable.loadAsync(FIXTURE_TABLE);
    for (const ip of ['3.5.140.2', '2a01:4f8::1', '9.9.9.9', '1.0.0.255']) expect(sliced.lookup(ip)).toEqual(table.lookup(ip));
  });

  it('refuses malformed and unsorted files, naming where', () => {
    const dir = mkdtempSync(join(tmpdir(), 'asn-'));
    const write = (v4: string, v6 = '') => {
      writeFileSync(join(dir, 'asn-ipv4-num.csv'), v4);
      writeFileSync(join(dir, 'asn-ipv6-num.csv'), v6);
    };
    write('1,2,3,"A ""quoted"" org"\r\n5,6,7,B\n');
    expect(AsnTable.load(dir).lookup('0.0.0.1')?.organisation).toBe('A "quoted" org');
    expect(AsnTable.load(dir).lookup('0.0.0.6')).toEqual({ asn: 7, organisation: 'B' });
    write('1,2,x,A\n');
    expect(() => AsnTable.load(dir)).toThrow(/malformed row at byte 0/);
    write('1,2,3,A\n99999999999,2,3,B\n');
    expect(() => AsnTable.load(dir)).toThrow(/malformed row at byte 8/);
    write('5,6,7,B\n1,2,3,A\n');
    expect(() => AsnTable.load(dir)).toThrow(/IPv4 rows not sorted at row 2/);
    write('1,2,3,A\n', `${2n ** 128n},${2n ** 128n},3,A\n`);
    expect(() => AsnTable.load(dir)).toThrow(/over 128 bits/);
  });
});

describe('hosting networks', () => {
  it('flags addresses of listed ASes only: AWS, Hetzner and Google yes; Cloudflare, Comcast, Deutsche Telekom no', async () => {
    const lookup = new NetworkLookup({ database: FIXTURE_TABLE });
    // Before the table is loaded only the fixture answers.
    expect(lookup.datacenter('3.5.140.2')).toBe(false);
    await lookup.start();
    for (const ip of ['3.5.140.2', '5.9.10.1', '8.8.8.8', '2a01:4f8::1', '2600:1f18::1', '::ffff:3.5.140.2']) expect(lookup.datacenter(ip), ip).toBe(true);
    for (const ip of ['1.0.0.1', '73.1.2.3', '80.130.0.1', '2003::1', '9.9.9.9', '127.0.0.1', '', 'junk']) expect(lookup.datacenter(ip), ip).toBe(false);
  });

  it('places fixture addresses before the table, and HOSTING_ASNS adds and removes ASes', async () => {
    const lookup = new NetworkLookup({
      database: FIXTURE_TABLE,
      fixture: readAsnFixture('{"198.18.0.0/24": 16509, "203.0.113.9": 3320, "2001:db8::7": 24940}'),
      hosting: 'AS3320, -16509',
    });
    await lookup.start();
    expect(lookup.asnOf('198.18.0.200')).toBe(16509);
    expect(lookup.datacenter('198.18.0.200')).toBe(false);
    expect(lookup.datacenter('3.5.140.2')).toBe(false);
    expect(lookup.datacenter('203.0.113.9')).toBe(true);
    expect(lookup.datacenter('80.130.0.1')).toBe(true);
    expect(lookup.datacenter('2001:db8::7')).toBe(true);
    expect(lookup.datacenter('5.9.10.1')).toBe(true);
  });

  it('with the table off, only the fixture answers', async () => {
    const lookup = new NetworkLookup({ database: 'off', fixture: { '198.18.0.1': 16509 } });
    expect(await lookup.start()).toBeUndefined();
    expect(lookup.datacenter('198.18.0.1')).toBe(true);
    expect(lookup.datacenter('3.5.140.2')).toBe(false);
  });

  it('refuses a bad fixture or override', () => {
    expect(() => readAsnFixture('{"198.18.0.0/40": 1}')).toThrow(/not an address/);
    expect(() => readAsnFixture('{"198.18.0.1": "AS1"}')).toThrow(/AS number/);
    expect(() => readAsnFixture('[1]')).toThrow(/JSON object/);
    expect(() => hostingAsns('AWS')).toThrow(/HOSTING_ASNS: AWS/);
    expect(() => hostingAsns('99999999999')).toThrow(/not an AS number/);
  });

  it('keeps each listed AS once, with an operator and its sources, and lists none of the networks it says people browse from', () => {
    expect(new Set(HOSTING_NETWORKS.map((n) => n.asn)).size).toBe(HOSTING_NETWORKS.length);
    for (const n of HOSTING.networks) {
      expect(n.operator).toBeTruthy();
      expect(n.sources.every((s) => s in HOSTING.sources)).toBe(true);
    }
    const set = hostingAsns();
    for (const kept of HOSTING.not_listed) expect(set.has(kept.asn), String(kept.asn)).toBe(false);
  });
});

describe("the package's own table", () => {
  let table: AsnTable;
  beforeAll(() => {
    table = AsnTable.load();
  });

  it('loads both files, and still names every listed AS as the list says', () => {
    expect(table.size.v4).toBeGreaterThan(300_000);
    expect(table.size.v6).toBeGreaterThan(50_000);
    for (const n of HOSTING.networks) expect(table.organisation(n.asn), `AS${n.asn}`).toBe(n.organisation);
  });

  it('places long-standing allocations: AWS, Hetzner and Google in listed ASes, consumer networks not', () => {
    const hosting = hostingAsns();
    for (const ip of ['3.5.140.2', '5.9.10.1', '8.8.8.8', '2a01:4f8::1', '2600:1f18::1']) expect(hosting.has(table.asnOf(ip)!), ip).toBe(true);
    // Comcast, Deutsche Telekom (IPv4 and IPv6), Cloudflare's resolver (Private Relay and WARP egress share its AS).
    for (const ip of ['73.1.2.3', '80.130.0.1', '2003::1', '1.1.1.1']) expect(hosting.has(table.asnOf(ip) ?? 0), ip).toBe(false);
  });
});
