/**
 * Product search and lookup over the existing catalog (no feed downloads), restricted on every
 * call to the caller's approved programs and authorized markets, fresh rows only. Money stays
 * exact: filters are Decimal128, responses decimal strings.
 */
import mongoose from 'mongoose';
import { literalPattern } from '@cw/db';
import type { CatalogModels as Models } from './data/catalog.data';
import { compareDecimals } from '@cw/money';
import type { RowsAt } from './row-cache';
import type { CatalogRow } from './types';
import type { CatalogScope } from './scope';

export const FRESHNESS_HOURS = 48;
export const MAX_OFFSET = 10_000;

export interface SearchParams {
  q?: string;
  brand?: string;
  category?: string;
  countries: string[];
  merchant?: number;
  group: boolean;
  minPrice?: string;
  maxPrice?: string;
  currency?: string;
  limit: number;
  offset: number;
  /** maxTimeMS of each query (over it: MaxTimeMSExpired, answered 503). */
  maxTimeMs?: number;
  /** Rows this process holds for the request's catalog version (row-cache.ts); none: read rows whole. */
  rows?: RowsAt;
}

export interface LookupParams {
  ids: string[];
  gtins: string[];
  countries: string[];
  merchant?: number;
  limit: number;
  offset: number;
  maxTimeMs?: number;
  rows?: RowsAt;
}

const ROW_FIELDS: Record<keyof Omit<CatalogRow, '_id'>, 1> = {
  gtin: 1,
  title: 1,
  price: 1,
  currency: 1,
  image: 1,
  source_url: 1,
  merchant_id: 1,
  program_id: 1,
  country: 1,
  availability: 1,
  last_seen_at: 1,
  fresh_until: 1,
  group_id: 1,
  size: 1,
};
/** What a row's freshness needs (see validUntil). */
const FRESHNESS_FIELDS = { last_seen_at: 1, fresh_until: 1 } as const;

export interface Page {
  rows: CatalogRow[];
  nextOffset: number | null;
  /** With group=1: sizes per representative row id, and the number of groups. */
  sizes?: Map<string, Array<{ size: string; product_id: string; availability: string }>>;
  total?: number;
  /** When the first row read stops being fresh by time alone (ms since the epoch; Infinity: none read). */
  validUntil: number;
}

/** The moment the first of `rows` leaves the freshness window without any write. */
function validUntil(rows: Iterable<Pick<CatalogRow, 'last_seen_at' | 'fresh_until'>>): number {
  let until = Infinity;
  for (const r of rows) {
    const end = Math.min(new Date(r.fresh_until).getTime(), new Date(r.last_seen_at).getTime() + FRESHNESS_HOURS * 3_600_000);
    if (end < until) until = end;
  }
  return until;
}

export function freshness(now: Date) {
  return { removed: false, last_seen_at: { $gte: new Date(now.getTime() - FRESHNESS_HOURS * 3_600_000) }, fresh_until: { $gt: now } };
}

/** The filter every catalog read starts from: scope, markets and freshness. */
function baseFilter(scope: CatalogScope, countries: string[], merchant: number | undefined, now: Date): Record<string, unknown> | undefined {
  const markets = countries.filter((c) => scope.markets.includes(c));
  if (!markets.length || !scope.programIds.length) return undefined;
  return {
    country: markets.length === 1 ? markets[0] : { $in: markets },
    program_id: scope.programIds.length === 1 ? scope.programIds[0] : { $in: scope.programIds },
    ...(merchant !== undefined ? { merchant_id: merchant } : {}),
    ...freshness(now),
  };
}

function nextOffset(offset: number, limit: number, more: boolean): number | null {
  return more && offset + limit <= MAX_OFFSET ? offset + limit : null;
}

export async function searchProducts(models: Models, scope: CatalogScope, p: SearchParams, now = new Date()): Promise<Page> {
  const base = baseFilter(scope, p.countries, p.merchant, now);
  if (!base) return { rows: [], nextOffset: null, validUntil: Infinity, ...(p.group ? { total: 0, sizes: new Map() } : {}) };
  // The most selective test first: the engine evaluates conditions in order and stops at the first miss.
  const filter: Record<string, unknown> = p.q ? { title_lc: { $regex: literalPattern(p.q.toLowerCase()) } } : {};
  Object.assign(filter, base, { availability: 'in_stock' });
  if (p.brand) filter.brand_lc = p.brand.toLowerCase();
  if (p.category) filter.category_lc = { $regex: literalPattern(p.category.toLowerCase()) };
  if (p.currency) filter.currency = p.currency.toUpperCase();
  if (p.minPrice !== undefined || p.maxPrice !== undefined) {
    filter.price = {
      ...(p.minPrice !== undefined ? { $gte: mongoose.Types.Decimal128.fromString(p.minPrice) } : {}),
      ...(p.maxPrice !== undefined ? { $lte: mongoose.Types.Decimal128.fromString(p.maxPrice) } : {}),
    };
  }
  if (!p.group) {
    const rows = await pageRows(models, filter, p);
    return { rows: rows.slice(0, p.limit), nextOffset: nextOffset(p.offset, p.limit, rows.length > p.limit), validUntil: validUntil(rows) };
  }
  return searchGroups(models, filter, base, p);
}

/**
 * The rows of a page (`limit` + 1 in `_id` order from `offset`, the extra one deciding
 * `next_offset`): read whole, or, while the process holds most rows pages need for this catalog
 * version, as ids with the rows held and the others read by id (row-cache.ts). Either way the
 * database selects every row.
 */
async function pageRows(
  models: Models,
  filter: Record<string, unknown>,
  p: Pick<SearchParams, 'offset' | 'limit' | 'maxTimeMs' | 'rows'>,
): Promise<CatalogRow[]> {
  const page = { sort: { _id: 1 }, skip: p.offset, limit: p.limit + 1, maxTimeMS: p.maxTimeMs } as const;
  if (p.rows?.idsFirst) {
    const ids = (await read<{ _id: string }>(models, filter, { ...page, projection: { _id: 1 } })).map((r) => r._id);
    const rows = await rowsById(models, ids, p.maxTimeMs, p.rows);
    // A row gone between the two reads (deleted): the page read again whole.
    if (rows.length === ids.length) return rows;
  }
  const rows = await read<CatalogRow>(models, filter, { ...page, projection: ROW_FIELDS });
  p.rows?.keepRead(rows);
  return rows;
}

/** The rows of `ids` that exist, in that order: held ones from `held`, the others read by id. */
async function rowsById(models: Models, ids: string[], maxTimeMs: number | undefined, held: RowsAt | undefined): Promise<CatalogRow[]> {
  const taken = held ? held.take(ids) : { rows: [], missing: ids };
  if (!taken.missing.length) return taken.rows as CatalogRow[];
  const rows = await read<CatalogRow>(models, { _id: { $in: taken.missing } }, { projection: ROW_FIELDS, limit: taken.missing.length, maxTimeMS: maxTimeMs });
  held?.keep(rows);
  const byId = new Map(rows.map((r) => [r._id, r]));
  return ids.map((id, i) => taken.rows[i] ?? byId.get(id)).filter((r): r is CatalogRow => r !== undefined);
}

interface PageRead {
  projection: Record<string, 1>;
  sort?: Record<string, 1 | -1>;
  skip?: number;
  /** At most a page (limit + 1 ≤ 101 rows): the whole answer is the first batch. */
  limit: number;
  maxTimeMS?: number;
}

/**
 * A page's reads are one `find` command each, answered in its first batch (`singleBatch`: at
 * most `limit` rows, 101 of ~1 KB at the most, far below a batch's 16 MiB). Not a driver cursor:
 * its set-up, per-document decoding and close cost about as much as the command itself on the
 * services' thread (issue 32, bench/README.md). Not a mongoose Query either: the filters are
 * built typed here (strings, numbers, Decimal128, dates), so its casting, hooks and lean copy
 * would only add cost; each read sets its own maxTimeMS.
 */
async function read<T>(models: Models, filter: Record<string, unknown>, r: PageRead): Promise<T[]> {
  const db = models.Product.db.db!;
  const reply = await db.command(
    {
      find: models.Product.collection.collectionName,
      filter,
      ...(r.sort ? { sort: r.sort } : {}),
      projection: r.projection,
      ...(r.skip ? { skip: r.skip } : {}),
      limit: r.limit,
      batchSize: r.limit,
      singleBatch: true,
      ...(r.maxTimeMS ? { maxTimeMS: r.maxTimeMS } : {}),
    },
    { readPreference: db.readPreference },
  );
  return (reply as { cursor: { firstBatch: T[] } }).cursor.firstBatch;
}

/** group=1: one result per variant group, its cheapest in-stock variant, with every size. */
async function searchGroups(models: Models, filter: Record<string, unknown>, base: Record<string, unknown>, p: SearchParams): Promise<Page> {
  // Every candidate is read, so read only what choosing needs; full rows for the page only.
  const candidates = await models.Product.find(filter, { _id: 1, group_id: 1, program_id: 1, country: 1, price: 1, ...FRESHNESS_FIELDS })
    .maxTimeMS(p.maxTimeMs ?? 0)
    .lean<CatalogRow[]>();
  const best = new Map<string, CatalogRow>();
  const groupKey = (r: CatalogRow) => (r.group_id ? `${r.group_id}\u0000${r.program_id}\u0000${r.country}` : `\u0001${r._id}`);
  for (const r of candidates) {
    const k = groupKey(r);
    const cur = best.get(k);
    if (!cur) {
      best.set(k, r);
      continue;
    }
    const c = comparePrice(r.price, cur.price);
    if (c < 0 || (c === 0 && r._id < cur._id)) best.set(k, r);
  }
  const reps = [...best.values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  const pageIds = reps.slice(p.offset, p.offset + p.limit).map((r) => r._id);
  const page = await rowsById(models, pageIds, p.maxTimeMs, p.rows);
  const sizes = new Map<string, Array<{ size: string; product_id: string; availability: string }>>();
  const grouped = page.filter((r) => r.group_id);
  let until = Math.min(validUntil(candidates), validUntil(page));
  if (grouped.length) {
    const variants = await models.Product.find(
      { ...base, group_id: { $in: [...new Set(grouped.map((r) => r.group_id as string))] } },
      { _id: 1, group_id: 1, program_id: 1, country: 1, size: 1, availability: 1, ...FRESHNESS_FIELDS },
    ).lean<CatalogRow[]>();
    until = Math.min(until, validUntil(variants));
    for (const r of grouped) {
      const list = variants
        .filter((v) => v.group_id === r.group_id && v.program_id === r.program_id && v.country === r.country)
        .map((v) => ({ size: v.size ?? '', product_id: v._id, availability: v.availability }))
        .sort((a, b) => compareSizes(a.size, b.size) || (a.product_id < b.product_id ? -1 : 1));
      sizes.set(r._id, list);
    }
  }
  for (const r of page) if (!sizes.has(r._id)) sizes.set(r._id, r.size ? [{ size: r.size, product_id: r._id, availability: r.availability }] : []);
  return { rows: page, nextOffset: nextOffset(p.offset, p.limit, reps.length > p.offset + p.limit), sizes, total: reps.length, validUntil: until };
}

function comparePrice(a: mongoose.Types.Decimal128, b: mongoose.Types.Decimal128): number {
  return compareDecimals(a.toString(), b.toString());
}

const SIZE_ORDER = ['XXS', 'XS', 'S', 'M', 'L', 'XL', 'XXL', 'XXXL'];
function compareSizes(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  const ia = SIZE_ORDER.indexOf(a.toUpperCase());
  const ib = SIZE_ORDER.indexOf(b.toUpperCase());
  if (ia >= 0 && ib >= 0) return ia - ib;
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function lookupProducts(models: Models, scope: CatalogScope, p: LookupParams, now = new Date()): Promise<Page> {
  const base = baseFilter(scope, p.countries, p.merchant, now);
  if (!base) return { rows: [], nextOffset: null, validUntil: Infinity };
  const or: Record<string, unknown>[] = [];
  if (p.ids.length) or.push({ _id: { $in: p.ids } });
  if (p.gtins.length) or.push({ gtin14: { $in: p.gtins.map((g) => g.padStart(14, '0')) } });
  // Union of both lists, one row per product; every availability, fresh rows only.
  const rows = await pageRows(models, { ...base, $or: or }, p);
  return { rows: rows.slice(0, p.limit), nextOffset: nextOffset(p.offset, p.limit, rows.length > p.limit), validUntil: validUntil(rows) };
}
