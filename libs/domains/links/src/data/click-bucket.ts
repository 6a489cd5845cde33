/**
 * Clicks in buckets (docs/decisions/0020-clicks-in-buckets.md): the clicks of one publisher, one
 * tracker batch and one 10-second window in one document, each field a column. What a link
 * fixes (link, program, merchant, sub-ID) is a small table of targets; user agents, address
 * hashes and referrers a table of distinct strings; every click is then a few bytes in packed
 * binary columns (time, target, strings, bot reason) plus 16 bytes of its id (the rest of a
 * signed id is its time, bot flag and link). Ids of another layout (older clicks, demo data) are
 * kept whole, and listed in `u` for the lookup by id.
 */
import { clickIdOf, copyClickIdTail, CLICK_ID_BOT_FLAG, CLICK_ID_TAIL } from '../click-ids';
import type { BotReason } from '../bot-detection';
import type { ClickBucketDoc } from './click-bucket.schema';

/** What a stored click holds (and what the tracker hands over). */
export interface ClickRow {
  _id: string;
  link_id: string;
  publisher_id: string;
  program_id: number;
  campaign_id: number;
  subid: string;
  created_at: Date;
  user_agent: string;
  ip_hash: string;
  referrer: string;
  is_bot: boolean;
  bot_reason?: BotReason | null;
  /** The index of the link's route that answered (smart links), or null: the link's own target. */
  route?: number | null;
  /**
   * A product link's GTIN fallback (docs/decisions/0063-gtin-fallback.md): the link's own program,
   * whose product was dead; the click's `program_id` is the program that answered. Null: none.
   */
  fallback_from?: number | null;
  /** The stats transaction that stored (and counts) this click. */
  stats_txn?: string | null;
}

/** A bucket spans at most one window: a list at a position reads buckets ending before the position's window ends. */
export const BUCKET_WINDOW_MS = 10_000;
/** At most this many clicks per bucket (a tracker batch is at most 1,000). */
export const BUCKET_MAX = 1000;

export const windowEnd = (ms: number) => Math.floor(ms / BUCKET_WINDOW_MS) * BUCKET_WINDOW_MS + BUCKET_WINDOW_MS;

/** An address hash as `addressHash` makes it (hex of 16 bytes), stored as its bytes in `ih`. */
const HEX_HASH = /^[0-9a-f]{32}$/;
const HASH_BYTES = 16;
/** What the clicks list reads of a bucket: everything but the address hashes, which it never shows. */
export const BUCKET_WITHOUT_HASHES = { ih: 0 } as const;

const REASONS: Array<BotReason | null> = [null, 'user_agent', 'no_user_agent', 'rate', 'agent', 'datacenter'];
/** A bot flag without a reason (rows from before reasons were kept). */
const BOT_NO_REASON = 255;

function reasonCode(c: ClickRow): number {
  if (!c.is_bot) return 0;
  const i = c.bot_reason ? REASONS.indexOf(c.bot_reason) : -1;
  return i > 0 ? i : BOT_NO_REASON;
}

/** Interns strings into a table, answering each one's index. */
class Table<K> {
  readonly index = new Map<K, number>();
  readonly values: K[] = [];
  add(v: K): number {
    let i = this.index.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.index.set(v, i);
      this.values.push(v);
    }
    return i;
  }
}

/**
 * The table of distinct strings as one string (`sj`, one value to encode and decode), or as an
 * array (`s`) when a string holds the separator.
 */
function stringTable(values: string[]): Pick<ClickBucketDoc, 's' | 'sj'> {
  return values.some((v) => v.includes(SJ_SEP)) ? { s: values } : { sj: values.join(SJ_SEP) };
}
const SJ_SEP = '\u0000';

/** Little-endian uint16s. */
function uint16s(values: number[]): Buffer {
  const out = Buffer.allocUnsafe(2 * values.length);
  values.forEach((v, i) => out.writeUInt16LE(v, 2 * i));
  return out;
}

/**
 * One bucket of these clicks (one publisher, one window, at most BUCKET_MAX); its id is the first
 * click's. `txn`: the stats transaction storing it (else the first click's own).
 */
export function packBucket(clicks: ClickRow[], txn?: string): ClickBucketDoc {
  const n = clicks.length;
  const first = clicks[0]!;
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const c of clicks) {
    const t = c.created_at.getTime();
    if (t < t0) t0 = t;
    if (t > t1) t1 = t;
  }
  // Targets: each one's link (`ls`), and its sub-ID, merchant and program as indexes (`tm`) into
  // the distinct values (`lsub`, `lc`, `lp`): a bucket of 200 links holds 40 sub-IDs and 5 merchants.
  const targets = new Table<string>();
  const links: string[] = [];
  const map: number[] = [];
  const subids = new Table<string>();
  const merchants = new Table<number>();
  const programs = new Table<number>();
  const strings = new Table<string>();
  const at = Buffer.allocUnsafe(4 * n);
  const l = Buffer.allocUnsafe(2 * n);
  const ua = Buffer.allocUnsafe(2 * n);
  // Address hashes as the redirect makes them (32 hex digits) are kept as their 16 bytes; else
  // as strings in the table.
  const hashBytes = clicks.every((c) => HEX_HASH.test(c.ip_hash ?? ''));
  const ih = hashBytes ? Buffer.allocUnsafe(HASH_BYTES * n) : undefined;
  const ip = hashBytes ? undefined : Buffer.allocUnsafe(2 * n);
  const rf = Buffer.allocUnsafe(2 * n);
  const b = Buffer.allocUnsafe(n);
  const k = Buffer.allocUnsafe(CLICK_ID_TAIL * n);
  // Routes (smart links) only when a click has one: 0 none, else the route's index + 1.
  const r = clicks.some((c) => c.route != null) ? Buffer.alloc(n) : undefined;
  // The GTIN fallback's program left (uint32; 0 none) only when a click fell back.
  const f = clicks.some((c) => c.fallback_from != null) ? Buffer.alloc(4 * n) : undefined;
  /** Clicks whose id cannot be rebuilt from the row (another layout, or not saying what the row says). */
  const whole: string[] = [];
  let humans = 0;
  let prev: ClickRow | undefined;
  let ti = -1;
  clicks.forEach((c, i) => {
    const subid = c.subid ?? '';
    // Runs of clicks on one link (the common case) look their target up once.
    if (!prev || c.link_id !== prev.link_id || c.program_id !== prev.program_id || c.campaign_id !== prev.campaign_id || subid !== (prev.subid ?? '')) {
      const before = targets.values.length;
      ti = targets.add(`${c.link_id}\u0000${c.program_id}\u0000${c.campaign_id}\u0000${subid}`);
      if (ti === before) {
        links.push(c.link_id);
        map.push(subids.add(subid), merchants.add(c.campaign_id), programs.add(c.program_id));
      }
    }
    prev = c;
    const t = c.created_at.getTime();
    at.writeUInt32LE(t - t0, 4 * i);
    l.writeUInt16LE(ti, 2 * i);
    ua.writeUInt16LE(strings.add(c.user_agent ?? ''), 2 * i);
    if (ih) ih.write(c.ip_hash, HASH_BYTES * i, HASH_BYTES, 'hex');
    else ip!.writeUInt16LE(strings.add(c.ip_hash ?? ''), 2 * i);
    rf.writeUInt16LE(strings.add(c.referrer ?? ''), 2 * i);
    b[i] = reasonCode(c);
    if (r && c.route != null) r[i] = c.route + 1;
    if (f && c.fallback_from != null) f.writeUInt32LE(c.fallback_from, 4 * i);
    if (!c.is_bot) humans++;
    // Only an id that says what the row says can be rebuilt from the row.
    if (!copyClickIdTail(c._id, t, c.is_bot ? CLICK_ID_BOT_FLAG : 0, c.link_id, k, CLICK_ID_TAIL * i)) whole.push(c._id);
  });
  const doc: ClickBucketDoc = {
    _id: first._id,
    publisher_id: first.publisher_id,
    t0: new Date(t0),
    t1: new Date(t1),
    n,
    h: humans,
    ls: links,
    lp: programs.values,
    lc: merchants.values,
    lsub: subids.values,
    tm: uint16s(map),
    ...stringTable(strings.values),
    at,
    l,
    ua,
    ...(ih ? { ih } : { ip: ip! }),
    rf,
    b,
  };
  if (r) doc.r = r;
  if (f) doc.f = f;
  if (!whole.length) doc.k = k;
  else {
    doc.id = clicks.map((c) => c._id);
    doc.u = whole;
  }
  const storedUnder = txn ?? first.stats_txn;
  if (storedUnder) doc.stats_txn = storedUnder;
  return doc;
}

/**
 * The clicks (indexes) of each bucket of a batch: by publisher and window (and stats
 * transaction), in order of first appearance, at most BUCKET_MAX each.
 */
function bucketRows(clicks: ClickRow[], txn?: string): number[][] {
  const open = new Map<string, number[]>();
  const groups: number[][] = [];
  let prev: { publisher: string; window: number; txn: string; group: number[] } | undefined;
  clicks.forEach((c, i) => {
    const window = Math.floor(c.created_at.getTime() / BUCKET_WINDOW_MS);
    const t = txn ?? c.stats_txn ?? '';
    // A run of clicks of one publisher in one window (the common case) goes on without a lookup.
    if (!prev || prev.publisher !== c.publisher_id || prev.window !== window || prev.txn !== t || prev.group.length >= BUCKET_MAX) {
      const key = `${c.publisher_id}\u0000${window}\u0000${t}`;
      let g = open.get(key);
      if (!g || g.length >= BUCKET_MAX) {
        open.set(key, (g = []));
        groups.push(g);
      }
      prev = { publisher: c.publisher_id, window, txn: t, group: g };
    }
    prev.group.push(i);
  });
  return groups;
}

/**
 * The buckets of a batch: grouped by publisher and window (and stats transaction, which a
 * batch shares), in the order of first appearance, at most BUCKET_MAX each; `rows` holds each
 * bucket's indexes in `clicks`. The same batch always makes the same buckets (same ids).
 */
export function bucketsOf(clicks: ClickRow[], txn?: string): Array<{ doc: ClickBucketDoc; rows: number[] }> {
  return bucketRows(clicks, txn).map((rows) => ({
    doc: packBucket(
      rows.map((i) => clicks[i]!),
      txn,
    ),
    rows,
  }));
}

/** The ids of the buckets bucketsOf makes of this batch (each its first click's id), without packing them. */
export function bucketIdsOf(clicks: ClickRow[]): string[] {
  return bucketRows(clicks).map((rows) => clicks[rows[0]!]!._id);
}

/** Bytes of a Buffer or a driver Binary. */
function bytes(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  const inner = (v as { buffer?: Uint8Array }).buffer;
  if (inner instanceof Uint8Array) {
    const len = (v as { position?: number }).position ?? inner.byteLength;
    return Buffer.from(inner.buffer, inner.byteOffset, len);
  }
  throw new Error('click bucket: a column is not binary');
}

/**
 * A bucket's lookup of each target's sub-ID (`at` 0), merchant (2) or program (4): through `tm`
 * (their indexes into the distinct values), or (buckets of earlier versions) one entry per target.
 */
function targetValues(doc: Pick<ClickBucketDoc, 'tm'>): <T>(values: T[], ti: number, at: number) => T {
  const tm = doc.tm ? bytes(doc.tm) : undefined;
  return <T>(values: T[], ti: number, at: number): T => values[tm ? tm.readUInt16LE(6 * ti + at) : ti]!;
}

/** What a reader wants of a bucket's clicks, decided from its columns before a click is rebuilt. */
export interface BucketFilter {
  linkId?: string;
  subid?: string;
  merchantId?: number | null;
  /** Bots too (default: only human clicks). */
  includeBots?: boolean;
}

/**
 * The clicks of a stored bucket, in the order they were stored (read without its hash column,
 * BUCKET_WITHOUT_HASHES, their `ip_hash` is ''); with `only`, just the clicks whose
 * target and bot flag match it (checked on the columns, so a click that does not match costs no
 * id, date or strings: a rare sub-ID's page reads full buckets for a few clicks each). `skip`
 * leaves out the clicks it flags (by position).
 */
export function unpackBucket(doc: ClickBucketDoc, only?: BucketFilter, skip?: Uint8Array): ClickRow[] {
  const n = doc.n;
  const at = bytes(doc.at);
  const l = bytes(doc.l);
  const ua = bytes(doc.ua);
  const ih = doc.ih ? bytes(doc.ih) : undefined;
  const ip = doc.ip ? bytes(doc.ip) : undefined;
  const rf = bytes(doc.rf);
  const b = bytes(doc.b);
  const routes = doc.r ? bytes(doc.r) : undefined;
  const fallbacks = doc.f ? bytes(doc.f) : undefined;
  const k = doc.k ? bytes(doc.k) : undefined;
  const t0 = new Date(doc.t0).getTime();
  const valueOf = targetValues(doc);
  // Which targets match (per target index), when the reader filters by target: a value the bucket
  // does not hold matches none of its targets.
  let targets: Uint8Array | undefined;
  if (only && (only.linkId !== undefined || only.subid !== undefined || only.merchantId !== undefined)) {
    if (only.subid !== undefined && !doc.lsub.includes(only.subid)) return [];
    if (only.merchantId !== undefined && !doc.lc.includes(only.merchantId as number)) return [];
    targets = new Uint8Array(doc.ls.length);
    let any = false;
    for (let ti = 0; ti < doc.ls.length; ti++) {
      const match =
        (only.linkId === undefined || doc.ls[ti] === only.linkId) &&
        (only.subid === undefined || valueOf(doc.lsub, ti, 0) === only.subid) &&
        (only.merchantId === undefined || valueOf(doc.lc, ti, 2) === only.merchantId);
      if (match) targets[ti] = 1;
      any ||= match;
    }
    if (!any) return [];
  }
  // The strings, once a bucket has clicks to give.
  const strs = doc.sj !== undefined ? doc.sj.split(SJ_SEP) : doc.s!;
  const humansOnly = only !== undefined && !only.includeBots;
  const out: ClickRow[] = [];
  for (let i = 0; i < n; i++) {
    const ti = l.readUInt16LE(2 * i);
    const code = b[i]!;
    if ((targets && !targets[ti]) || (humansOnly && code !== 0) || skip?.[i]) continue;
    const t = t0 + at.readUInt32LE(4 * i);
    const linkId = doc.ls[ti]!;
    const row: ClickRow = {
      _id: k ? clickIdOf(t, code ? CLICK_ID_BOT_FLAG : 0, linkId, k, CLICK_ID_TAIL * i) : doc.id![i]!,
      link_id: linkId,
      publisher_id: doc.publisher_id,
      program_id: valueOf(doc.lp, ti, 4),
      campaign_id: valueOf(doc.lc, ti, 2),
      subid: valueOf(doc.lsub, ti, 0),
      created_at: new Date(t),
      user_agent: strs[ua.readUInt16LE(2 * i)]!,
      ip_hash: ih ? ih.toString('hex', HASH_BYTES * i, HASH_BYTES * (i + 1)) : ip ? strs[ip.readUInt16LE(2 * i)]! : '',
      referrer: strs[rf.readUInt16LE(2 * i)]!,
      is_bot: code !== 0,
      stats_txn: doc.stats_txn ?? null,
    };
    const reason = code === BOT_NO_REASON ? undefined : REASONS[code];
    if (reason) row.bot_reason = reason;
    if (routes?.[i]) row.route = routes[i]! - 1;
    if (fallbacks) {
      const from = fallbacks.readUInt32LE(4 * i);
      if (from) row.fallback_from = from;
    }
    out.push(row);
  }
  return out;
}

/** What counting reads of a bucket (`humanClickCounts`): its targets, times and bot flags; no strings, hashes or ids. */
export const BUCKET_COUNTING = { publisher_id: 1, t0: 1, n: 1, ls: 1, lp: 1, lc: 1, lsub: 1, tm: 1, at: 1, l: 1, b: 1 } as const;

/** A bucket's human clicks on one target in one slot of time. */
export interface ClickCount {
  publisher_id: string;
  link_id: string;
  program_id: number;
  campaign_id: number;
  subid: string;
  /** The time of the slot's first such click (ms). */
  at: number;
  n: number;
}

/**
 * A stored bucket's clicks not flagged as bots, counted per target and per `slotMs` of time, from
 * its columns (read with BUCKET_COUNTING): no click, id or date is rebuilt. What the stats worker
 * adds up for a batch stored as buckets.
 */
export function humanClickCounts(doc: Pick<ClickBucketDoc, keyof typeof BUCKET_COUNTING>, slotMs: number): ClickCount[] {
  const at = bytes(doc.at);
  const l = bytes(doc.l);
  const b = bytes(doc.b);
  const valueOf = targetValues(doc);
  const t0 = new Date(doc.t0).getTime();
  // Keyed by slot and target (a target index is a uint16).
  const groups = new Map<number, ClickCount>();
  for (let i = 0; i < doc.n; i++) {
    if (b[i] !== 0) continue;
    const t = t0 + at.readUInt32LE(4 * i);
    const ti = l.readUInt16LE(2 * i);
    const key = Math.floor(t / slotMs) * 0x10000 + ti;
    const group = groups.get(key);
    if (group) group.n++;
    else
      groups.set(key, {
        publisher_id: doc.publisher_id,
        link_id: doc.ls[ti]!,
        program_id: valueOf(doc.lp, ti, 4),
        campaign_id: valueOf(doc.lc, ti, 2),
        subid: valueOf(doc.lsub, ti, 0),
        at: t,
        n: 1,
      });
  }
  return [...groups.values()];
}

/** The list's order: newest first, then by id. */
export const newestFirst = (a: ClickRow, b: ClickRow) => {
  const d = b.created_at.getTime() - a.created_at.getTime();
  return d !== 0 ? d : a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
};
