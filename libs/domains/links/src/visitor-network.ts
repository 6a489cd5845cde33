/**
 * The visitor's network for the `datacenter` bot flag, offline: an address's autonomous system
 * (AS number and organisation) from the `@ip-location-db/asn` package's numeric CSV files
 * (RouteViews, the five RIRs and DB-IP's IP to ASN Lite, CC BY 4.0), or the same files in the
 * directory ASN_DATABASE names; a click from an AS on the hosting list (`hosting-networks.json`,
 * plus HOSTING_ASNS) is flagged. A fixture (ASN_FIXTURE) places addresses before the table, as
 * GEOIP_FIXTURE does for countries. docs/decisions/0067-datacenter-clicks.md.
 *
 * The table: IPv4 ranges as three Uint32Arrays (start, end, AS number), IPv6 ranges as two
 * Uint32Arrays of four big-endian words per address and one of AS numbers, the organisations
 * once per AS in one string with offsets; a lookup is a binary search. Loaded once per process
 * (`AsnTable.load`, or `loadAsync`, which yields to the event loop between slices so a starting
 * tracker keeps answering).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { join } from 'node:path';
import HOSTING from './data/hosting-networks.json';

/** The package's file names, also the layout ASN_DATABASE must have. */
export const ASN_FILES = { v4: 'asn-ipv4-num.csv', v6: 'asn-ipv6-num.csv' } as const;

export interface AsnAnswer {
  asn: number;
  /** As the data names it; null when unnamed (fixture entries). */
  organisation: string | null;
}

/** Rows parsed per slice of `loadAsync` before yielding. */
const SLICE_ROWS = 5_000;

class Growable {
  a: Uint32Array;
  n = 0;
  constructor(cap: number) {
    this.a = new Uint32Array(cap);
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): Uint32Array {
    return this.a.slice(0, this.n);
  }
}

/** Reads one CSV file of `start,end,asn,organisation` (numeric addresses) row by row from a Buffer. */
class RowParser {
  pos = 0;
  /** IPv6 limbs: eight 16-bit limbs, most significant first. */
  private readonly limbs = new Float64Array(8);
  constructor(
    private readonly buf: Buffer,
    private readonly v6: boolean,
    private readonly sink: {
      starts: Growable;
      ends: Growable;
      asns: Growable;
      orgs: Map<number, string>;
    },
  ) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** Parses up to `max` rows; throws on a malformed one, naming its byte offset. */
  rows(max: number): void {
    const { buf } = this;
    for (let k = 0; k < max && this.pos < buf.length; k++) {
      const at = this.pos;
      if (buf[at] === 10 || buf[at] === 13) {
        this.pos++;
        continue;
      }
      if (this.v6) {
        this.address6(this.sink.starts);
        this.comma(at);
        this.address6(this.sink.ends);
      } else {
        this.sink.starts.push(this.integer(at, 0xffffffff));
        this.comma(at);
        this.sink.ends.push(this.integer(at, 0xffffffff));
      }
      this.comma(at);
      const asn = this.integer(at, 0xffffffff);
      this.sink.asns.push(asn);
      this.comma(at);
      // The organisation is read on an AS's first row only; later rows skip to the line's end.
      if (!this.sink.orgs.has(asn)) this.sink.orgs.set(asn, this.field());
      else {
        const nl = buf.indexOf(10, this.pos);
        this.pos = nl < 0 ? buf.length : nl + 1;
      }
    }
  }

  private comma(row: number): void {
    if (this.buf[this.pos] !== 44) throw new Error(`ASN table: malformed row at byte ${row}`);
    this.pos++;
  }

  private integer(row: number, max: number): number {
    const { buf } = this;
    let n = 0;
    const start = this.pos;
    while (this.pos < buf.length && buf[this.pos]! >= 48 && buf[this.pos]! <= 57) n = n * 10 + buf[this.pos++]! - 48;
    if (this.pos === start || this.pos - start > 10 || n > max) throw new Error(`ASN table: malformed row at byte ${row}`);
    return n;
  }

  /** A decimal 128-bit address, pushed as four big-endian 32-bit words. */
  private address6(out: Growable): void {
    const { buf, limbs } = this;
    limbs.fill(0);
    const start = this.pos;
    while (this.pos < buf.length && buf[this.pos]! >= 48 && buf[this.pos]! <= 57) {
      // Up to 9 digits at a time: limbs = limbs * 10^k + chunk (each limb below 2^16, so exact in a double).
      let chunk = 0;
      let scale = 1;
      for (let d = 0; d < 9 && this.pos < buf.length && buf[this.pos]! >= 48 && buf[this.pos]! <= 57; d++) {
        chunk = chunk * 10 + buf[this.pos++]! - 48;
        scale *= 10;
      }
      let carry = chunk;
      for (let i = 7; i >= 0; i--) {
        const v = limbs[i]! * scale + carry;
        limbs[i] = v % 65536;
        carry = Math.floor(v / 65536);
      }
      if (carry) throw new Error(`ASN table: address over 128 bits at byte ${start}`);
    }
    if (this.pos === start) throw new Error(`ASN table: malformed row at byte ${start}`);
    for (let i = 0; i < 8; i += 2) out.push((limbs[i]! * 65536 + limbs[i + 1]!) >>> 0);
  }

  /** The rest of the row: a plain or quoted (`""` inside) field. */
  private field(): string {
    const { buf } = this;
    let value: string;
    if (buf[this.pos] === 34) {
      const start = ++this.pos;
      let escaped = false;
      for (;;) {
        const q = buf.indexOf(34, this.pos);
        if (q < 0) throw new Error(`ASN table: unterminated quote at byte ${start - 1}`);
        if (buf[q + 1] === 34) {
          escaped = true;
          this.pos = q + 2;
          continue;
        }
        value = buf.toString('utf8', start, q);
        this.pos = q + 1;
        break;
      }
      if (escaped) value = value.replaceAll('""', '"');
    } else {
      const start = this.pos;
      while (this.pos < buf.length && buf[this.pos] !== 10 && buf[this.pos] !== 13) this.pos++;
      value = buf.toString('utf8', start, this.pos);
    }
    while (this.pos < buf.length && buf[this.pos] !== 10) this.pos++;
    this.pos++;
    return value;
  }
}

interface Family {
  starts: Uint32Array;
  ends: Uint32Array;
  asns: Uint32Array;
}

/** IPv4 dotted quad to its number, else undefined. */
export function ipv4Number(ip: string): number | undefined {
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (!digits || part > 255) return undefined;
      n = n * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + c - 48;
      digits++;
    } else return undefined;
  }
  if (dots !== 3 || !digits || part > 255) return undefined;
  return n * 256 + part;
}

const groups = new Uint16Array(8);

/**
 * An IPv6 address in text (with `::` and an IPv4 tail allowed) as four big-endian words written
 * into `out`; false when it is not one. By character codes, no strings made: a lookup of an
 * address never seen runs it.
 */
export function parseIpv6(ip: string, out: Uint32Array): boolean {
  const len = ip.length;
  if (len < 2 || len > 45) return false;
  let n = 0; // groups read
  let gap = -1; // where `::` stands, in groups
  let i = 0;
  if (ip.charCodeAt(0) === 58) {
    if (ip.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
    if (i === len) {
      out.fill(0);
      return true;
    }
  }
  while (i < len) {
    // An IPv4 tail: the rest holds a dot.
    const partStart = i;
    let v = 0;
    let digits = 0;
    while (i < len && digits <= 4) {
      const c = ip.charCodeAt(i);
      const h = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
      if (h < 0) break;
      v = v * 16 + h;
      digits++;
      i++;
    }
    if (i < len && ip.charCodeAt(i) === 46) {
      if (n > 6) return false;
      const v4 = ipv4Number(ip.slice(partStart));
      if (v4 === undefined) return false;
      groups[n++] = v4 >>> 16;
      groups[n++] = v4 & 0xffff;
      i = len;
      break;
    }
    if (digits === 0 || digits > 4 || n === 8) return false;
    groups[n++] = v;
    if (i === len) break;
    if (ip.charCodeAt(i) !== 58) return false;
    i++;
    if (i < len && ip.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = n;
      i++;
    } else if (i === len) return false;
  }
  if (gap < 0 ? n !== 8 : n > 7) return false;
  const zeros = 8 - n;
  for (let k = 0; k < 4; k++) {
    const a = 2 * k;
    const b = a + 1;
    const ga = gap < 0 || a < gap ? groups[a]! : a < gap + zeros ? 0 : groups[a - zeros]!;
    const gb = gap < 0 || b < gap ? groups[b]! : b < gap + zeros ? 0 : groups[b - zeros]!;
    out[k] = ((ga << 16) | gb) >>> 0;
  }
  return true;
}

/** An IPv6 address as four big-endian words (all zero when it is not one). */
export function ipv6Words(ip: string, out = new Uint32Array(4)): Uint32Array {
  if (!parseIpv6(ip, out)) out.fill(0);
  return out;
}

/** a <=> b over four words at a's offset ai and b's offset bi. */
function compare6(a: Uint32Array, ai: number, b: Uint32Array, bi: number): number {
  for (let k = 0; k < 4; k++) {
    const x = a[ai + k]!;
    const y = b[bi + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export class AsnTable {
  private readonly scratch = new Uint32Array(4);

  private constructor(
    private readonly v4: Family,
    private readonly v6: Family,
    /** Distinct AS numbers, sorted, and their organisations: `orgText.slice(orgAt[i], orgAt[i + 1])`. */
    private readonly orgAsns: Uint32Array,
    private readonly orgAt: Uint32Array,
    private readonly orgText: string,
  ) {}

  /** The package's directory (its two numeric CSV files). */
  static defaultDirectory(): string {
    const pkg = createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json');
    return pkg.slice(0, -'/package.json'.length);
  }

  /** Reads and packs both files at once (blocks the event loop for the whole parse). */
  static load(dir = AsnTable.defaultDirectory()): AsnTable {
    const b = new Builder();
    for (const v6 of [false, true]) {
      const p = b.parser(readFileSync(join(dir, v6 ? ASN_FILES.v6 : ASN_FILES.v4)), v6);
      while (!p.done) p.rows(Number.MAX_SAFE_INTEGER);
      b.close(v6);
    }
    return b.table();
  }

  /** As `load`, yielding to the event loop every SLICE_ROWS rows. */
  static async loadAsync(dir = AsnTable.defaultDirectory()): Promise<AsnTable> {
    const b = new Builder();
    for (const v6 of [false, true]) {
      const p = b.parser(await readFile(join(dir, v6 ? ASN_FILES.v6 : ASN_FILES.v4)), v6);
      while (!p.done) {
        p.rows(SLICE_ROWS);
        await new Promise<void>((r) => setImmediate(r));
      }
      b.close(v6);
    }
    return b.table();
  }

  /** @internal */
  static of(v4: Family, v6: Family, orgs: Map<number, string>): AsnTable {
    const asns = Uint32Array.from(orgs.keys()).sort();
    const at = new Uint32Array(asns.length + 1);
    const parts: string[] = [];
    let len = 0;
    asns.forEach((asn, i) => {
      const o = orgs.get(asn)!;
      at[i] = len;
      parts.push(o);
      len += o.length;
    });
    at[asns.length] = len;
    return new AsnTable(v4, v6, asns, at, parts.join(''));
  }

  /** Rows of each family. */
  get size(): { v4: number; v6: number } {
    return { v4: this.v4.asns.length, v6: this.v6.asns.length };
  }

  /** The AS holding an IPv4 address given as its number, or 0. */
  asn4(n: number): number {
    const { starts, ends, asns } = this.v4;
    let lo = 0;
    let hi = starts.length - 1;
    // The last range starting at or before n.
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= n) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && n <= ends[hi]! ? asns[hi]! : 0;
  }

  /** The AS holding an IPv6 address given as four words, or 0. */
  asn6(w: Uint32Array): number {
    const { starts, ends, asns } = this.v6;
    let lo = 0;
    let hi = asns.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compare6(starts, mid * 4, w, 0) <= 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi >= 0 && compare6(w, 0, ends, hi * 4) <= 0 ? asns[hi]! : 0;
  }

  /** The AS of an address (IPv4, IPv6, IPv4-mapped IPv6), or undefined. */
  asnOf(ip: string): number | undefined {
    const n = ipv4Number(ip);
    if (n !== undefined) return this.asn4(n) || undefined;
    if (!parseIpv6(ip, this.scratch)) return undefined;
    const w = this.scratch;
    // IPv4 seen through an IPv6 socket (::ffff:a.b.c.d).
    if (w[0] === 0 && w[1] === 0 && w[2] === 0xffff) return this.asn4(w[3]!) || undefined;
    return this.asn6(w) || undefined;
  }

  /** The organisation the data names for an AS, or null. */
  organisation(asn: number): string | null {
    const asns = this.orgAsns;
    let lo = 0;
    let hi = asns.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (asns[mid]! === asn) return this.orgText.slice(this.orgAt[mid], this.orgAt[mid + 1]) || null;
      if (asns[mid]! < asn) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  lookup(ip: string): AsnAnswer | undefined {
    const asn = this.asnOf(ip);
    return asn === undefined ? undefined : { asn, organisation: this.organisation(asn) };
  }
}

class Builder {
  private readonly orgs = new Map<number, string>();
  private sink = { starts: new Growable(1), ends: new Growable(1), asns: new Growable(1), orgs: this.orgs };
  private readonly families: Family[] = [];

  parser(buf: Buffer, v6: boolean): RowParser {
    // About 52 bytes a row in the IPv4 file, 110 in the IPv6 one: capacity from the size.
    const rows = Math.ceil(buf.length / (v6 ? 90 : 45));
    this.sink = { starts: new Growable(v6 ? rows * 4 : rows), ends: new Growable(v6 ? rows * 4 : rows), asns: new Growable(rows), orgs: this.orgs };
    return new RowParser(buf, v6, this.sink);
  }

  close(v6: boolean): void {
    const f: Family = { starts: this.sink.starts.done(), ends: this.sink.ends.done(), asns: this.sink.asns.done() };
    // Rows must be sorted by start (the files are): a lookup's binary search depends on it. Where
    // two rows overlap (one pair in 2.3.2026061719's IPv4 file, 215.0.0.0/16, both the US DoD's),
    // the later row answers the overlap.
    for (let i = 1; i < f.asns.length; i++) {
      const prev = v6 ? compare6(f.starts, (i - 1) * 4, f.starts, i * 4) : f.starts[i - 1]! - f.starts[i]!;
      if (prev > 0) throw new Error(`ASN table: ${v6 ? 'IPv6' : 'IPv4'} rows not sorted at row ${i + 1}`);
    }
    this.families[v6 ? 1 : 0] = f;
  }

  table(): AsnTable {
    return AsnTable.of(this.families[0]!, this.families[1]!, this.orgs);
  }
}

/** One hosting network of the list. */
export interface HostingNetwork {
  asn: number;
  operator: string;
}

/** The list's networks (docs/decisions/0067-datacenter-clicks.md). */
export const HOSTING_NETWORKS: readonly HostingNetwork[] = HOSTING.networks;

/**
 * The AS numbers counted as hosting: the list's, with HOSTING_ASNS applied (`AS` optional, comma
 * or space separated; `123` adds, `-123` removes).
 */
export function hostingAsns(override?: string): Set<number> {
  const set = new Set(HOSTING_NETWORKS.map((n) => n.asn));
  for (const item of (override ?? '').split(/[\s,]+/).filter(Boolean)) {
    const m = /^(-?)(?:AS)?(\d{1,10})$/i.exec(item);
    if (!m || Number(m[2]) > 0xffffffff) throw new Error(`HOSTING_ASNS: ${item} is not an AS number (123, AS123, or -123 to remove)`);
    if (m[1]) set.delete(Number(m[2]));
    else set.add(Number(m[2]));
  }
  return set;
}

/** ASN_FIXTURE's JSON (inline when it starts with `{`, else a file's path): address or IPv4 network to AS number. */
export function readAsnFixture(spec: string): Record<string, number> {
  const text = /^\s*[[{]/.test(spec) ? spec : readFileSync(spec, 'utf8');
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('ASN_FIXTURE must be a JSON object of address (or IPv4 network) to AS number');
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 0xffffffff) throw new Error(`ASN_FIXTURE: ${k} must map to an AS number`);
    const [addr, bits] = k.split('/');
    if (!isIP(addr!) || (bits !== undefined && (isIP(addr!) !== 4 || !/^\d{1,2}$/.test(bits) || Number(bits) > 32)))
      throw new Error(`ASN_FIXTURE: ${k} is not an address or an IPv4 network`);
  }
  return parsed as Record<string, number>;
}

const MEMO_MAX = 10_000;

export interface NetworkLookupOptions {
  /** The directory of the two CSV files (ASN_DATABASE); `off`: no table (the fixture only). */
  database?: string;
  fixture?: Record<string, number>;
  /** HOSTING_ASNS. */
  hosting?: string;
}

/**
 * Whether a visitor's address is in a hosting network: the fixture first, then the table. Until
 * the table is loaded (`start`), only the fixture answers: such clicks are not flagged.
 */
export class NetworkLookup {
  private table?: AsnTable;
  private loading?: Promise<AsnTable | undefined>;
  private readonly hosting: Set<number>;
  private readonly exact = new Map<string, number>();
  private readonly nets: Array<{ base: number; mask: number; asn: number }> = [];
  private readonly memo = new Map<string, boolean>();

  constructor(private readonly opts: NetworkLookupOptions = {}) {
    this.hosting = hostingAsns(opts.hosting);
    for (const [k, asn] of Object.entries(opts.fixture ?? {})) {
      const [addr, bits] = k.split('/');
      if (bits === undefined) this.exact.set(addr!, asn);
      else {
        const b = Number(bits);
        const mask = b === 0 ? 0 : (~0 << (32 - b)) >>> 0;
        this.nets.push({ base: (ipv4Number(addr!)! & mask) >>> 0, mask, asn });
      }
    }
    this.nets.sort((a, b) => b.mask - a.mask);
  }

  /** Loads the table in slices (once; later calls return the same promise). Resolves undefined when off. */
  start(): Promise<AsnTable | undefined> {
    this.loading ??= (this.opts.database === 'off' ? Promise.resolve(undefined) : AsnTable.loadAsync(this.opts.database ?? AsnTable.defaultDirectory())).then(
      (t) => {
        this.table = t;
        // Answers given before the table were the fixture's alone.
        this.memo.clear();
        return t;
      },
    );
    return this.loading;
  }

  /** The AS of an address: the fixture's, else the table's (once loaded), else undefined. */
  asnOf(raw: string): number | undefined {
    const ip = raw.startsWith('::ffff:') && ipv4Number(raw.slice(7)) !== undefined ? raw.slice(7) : raw;
    const fixed = this.exact.get(ip);
    if (fixed !== undefined) return fixed;
    if (this.nets.length) {
      const n = ipv4Number(ip);
      if (n !== undefined) for (const net of this.nets) if ((n & net.mask) >>> 0 === net.base) return net.asn;
    }
    return this.table?.asnOf(ip);
  }

  /** True when the address is in a hosting or data-centre network; recent addresses memoised. */
  datacenter(ip: string): boolean {
    if (!ip) return false;
    const known = this.memo.get(ip);
    if (known !== undefined) return known;
    const asn = this.asnOf(ip);
    const found = asn !== undefined && this.hosting.has(asn);
    if (this.memo.size >= MEMO_MAX) this.memo.clear();
    this.memo.set(ip, found);
    return found;
  }
}
