/**
 * The visitor's country for smart link routes, offline: a MaxMind-format country database (.mmdb,
 * read by `mmdb-lib`), by default the one `@ip-location-db/geo-whois-asn-country-mmdb` ships
 * (GeoFeed, then the five RIRs' whois, then their ASN data; CC0, data under CC BY 4.0 by the NRO),
 * or the file GEOIP_DATABASE names (a newer build of the same, or MaxMind's GeoLite2-Country: both
 * record shapes are read). A fixture (GEOIP_FIXTURE) places addresses before the database: the
 * local platform and tests route documentation addresses (203.0.113.x) that no database places.
 * Opened on the first lookup (only a click on a link with routes asks), recent addresses
 * memoised. docs/decisions/0062-smart-link-routes.md.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader, type CountryResponse } from 'mmdb-lib';

/** The record of either shape: ip-location-db's `{country_code}` or GeoLite2's `{country: {iso_code}}`. */
type CountryRecord = CountryResponse & { country_code?: string };

const MEMO_MAX = 10_000;

/**
 * Networks no country holds (private, loopback, link-local, shared, documentation, benchmarking,
 * multicast and reserved): never asked of the database, which places some of them (the package's
 * build puts 203.0.113.0/24 in AU). The fixture still places them. Checked by hand, not with
 * node's BlockList (slower per check than the database's lookup: bench/README.md).
 */
const UNPLACED_V4: Array<[number, number]> = (
  [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 3],
  ] as const
).map(([net, bits]) => {
  const mask = (~0 << (32 - bits)) >>> 0;
  return [(ipv4Number(net)! & mask) >>> 0, mask];
});

function unplaced(ip: string, family: number): boolean {
  if (family === 4) {
    const n = ipv4Number(ip)!;
    return UNPLACED_V4.some(([base, mask]) => (n & mask) >>> 0 === base);
  }
  // IPv6: unspecified and loopback, unique local fc00::/7, link-local fe80::/10, documentation
  // 2001:db8::/32, multicast ff00::/8.
  const a = ip.toLowerCase();
  return a === '::' || a === '::1' || /^f[cd]|^fe[89ab]|^ff|^2001:0?db8:/.test(a);
}

/** One fixture entry: an address, or an IPv4 network (`a.b.c.d/n`). */
interface FixtureNet {
  base: number;
  mask: number;
  country: string;
}

function ipv4Number(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

/** The fixture's JSON (inline when it starts with `{`, else a file's path), checked. */
export function readFixture(spec: string): Record<string, string> {
  const text = /^\s*[[{]/.test(spec) ? spec : readFileSync(spec, 'utf8');
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('GEOIP_FIXTURE must be a JSON object of address (or IPv4 network) to country');
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string' || !/^[A-Z]{2}$/.test(v)) throw new Error(`GEOIP_FIXTURE: ${k} must map to an upper-case ISO 3166-1 alpha-2 code`);
    const [addr, bits] = k.split('/');
    if (!isIP(addr!) || (bits !== undefined && (isIP(addr!) !== 4 || !/^\d{1,2}$/.test(bits) || Number(bits) > 32)))
      throw new Error(`GEOIP_FIXTURE: ${k} is not an address or an IPv4 network`);
  }
  return parsed as Record<string, string>;
}

export class CountryLookup {
  private reader?: Reader<CountryResponse>;
  private readonly exact = new Map<string, string>();
  private readonly nets: FixtureNet[] = [];
  private readonly memo = new Map<string, string | null>();

  constructor(private readonly opts: { database?: string; fixture?: Record<string, string> } = {}) {
    for (const [k, country] of Object.entries(opts.fixture ?? {})) {
      const [addr, bits] = k.split('/');
      if (bits === undefined) this.exact.set(addr!, country);
      else {
        const b = Number(bits);
        const mask = b === 0 ? 0 : (~0 << (32 - b)) >>> 0;
        this.nets.push({ base: (ipv4Number(addr!)! & mask) >>> 0, mask, country });
      }
    }
    // Longest prefix first.
    this.nets.sort((a, b) => b.mask - a.mask);
  }

  /** The database file: GEOIP_DATABASE, else the package's (IPv4 and IPv6 in one file). */
  static defaultDatabase(): string {
    return createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
  }

  private open(): Reader<CountryResponse> {
    // Records decoded once per data offset (a country database has a few hundred): a lookup is then the tree walk alone.
    const records = new Map<string | number, unknown>();
    this.reader ??= new Reader<CountryResponse>(readFileSync(this.opts.database ?? CountryLookup.defaultDatabase()), {
      cache: { get: (k: string | number) => records.get(k), set: (k: string | number, v: unknown) => void records.set(k, v) },
    });
    return this.reader;
  }

  /** The ISO 3166-1 alpha-2 country of an address, or undefined (no address, private, or not placed). */
  country(ip: string): string | undefined {
    if (!ip) return undefined;
    const known = this.memo.get(ip);
    if (known !== undefined) return known ?? undefined;
    const found = this.find(ip);
    if (this.memo.size >= MEMO_MAX) this.memo.clear();
    this.memo.set(ip, found ?? null);
    return found;
  }

  private find(raw: string): string | undefined {
    // IPv4 seen through an IPv6 socket.
    const ip = raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
    const fixed = this.exact.get(ip);
    if (fixed) return fixed;
    if (this.nets.length) {
      const n = ipv4Number(ip);
      if (n !== undefined) for (const net of this.nets) if ((n & net.mask) >>> 0 === net.base) return net.country;
    }
    const family = isIP(ip);
    if (!family || unplaced(ip, family)) return undefined;
    const rec = this.open().get(ip) as CountryRecord | null;
    const code = rec?.country_code ?? rec?.country?.iso_code ?? rec?.registered_country?.iso_code;
    return code && /^[A-Z]{2}$/.test(code) ? code : undefined;
  }
}
