/**
 * Typed reads of an account's merchant-reported sales for adapters of other vendors' APIs (the
 * HasOffers endpoint in apps/reporting-api): a filtered, sorted page of sales with its count and
 * totals per currency, the database filtering, sorting and paging (the request reads the page,
 * not the range); and the stats read model's facts of a range. Conditions and sort keys name a
 * sale's fields as this domain does; the stored names and MongoDB stay here.
 */
import type { Principal } from '@cw/auth';
import { useCase } from '@cw/usecase';
import { Types } from 'mongoose';
import type { ConversionRecord, ConversionStatus } from '@cw/conversions';
import { readFacts, type Fact, type StatsQuery } from '@cw/stats';
import { own, type ReportsDeps } from './deps';
import { SALES_POLICY } from './sales.service';

/** Text fields ('' and absent are the same value: match both with `in: ['', null]`). */
export type SaleTextField = 'id' | 'currency' | 'subid' | 'click_id';
/** Amounts (decimal strings, compared exactly). */
export type SaleAmountField = 'commission' | 'sale_amount';
export type SaleField = SaleTextField | SaleAmountField | 'program_id' | 'status' | 'occurred_at';
/** A value of a field: text, a decimal string of an amount, a program id, a time; null is absent. */
export type SaleValue = string | number | Date | null;

/** A condition on sales. */
export type SaleCondition =
  | { field: SaleField; in: SaleValue[] }
  | { field: SaleField; notIn: SaleValue[] }
  | { field: SaleField; range: { gt?: SaleValue; gte?: SaleValue; lt?: SaleValue; lte?: SaleValue } }
  | { field: SaleTextField; like: RegExp[] }
  | { field: SaleTextField; notLike: RegExp[] }
  | { allOf: SaleCondition[] }
  | { anyOf: SaleCondition[] }
  | { noneOf: SaleCondition[] };

/** A sort key: a field, the status or the program in a given order, or the commission of approved sales (others 0). */
export type SaleSort =
  | { by: SaleField; dir: 1 | -1 }
  | { by: 'status_rank'; order: ConversionStatus[]; dir: 1 | -1 }
  | { by: 'program_rank'; order: number[]; dir: 1 | -1 }
  | { by: 'approved_commission'; dir: 1 | -1 };

export interface SaleSearch {
  /** occurred_at in [from, to). */
  from: Date;
  to: Date;
  where: SaleCondition[];
  /** Then newest first, then by id. */
  sort: SaleSort[];
  skip: number;
  limit: number;
  /** Sum commission and sale amount per currency over every matching sale. */
  totals: boolean;
}

export interface SaleSearchResult {
  /** The page (without events or the merchant's order id). */
  sales: ConversionRecord[];
  /** Every matching sale. */
  count: number;
  totals?: Array<{ currency: string; commission: { toString(): string }; sale_amount: { toString(): string } }>;
}

const STORED: Record<SaleField, string> = {
  id: '_id',
  currency: 'currency',
  subid: 'subid',
  click_id: 'click_id',
  commission: 'commission',
  sale_amount: 'sale_amount',
  program_id: 'program_id',
  status: 'status',
  occurred_at: 'occurred_at',
};

const stored = (field: SaleField, v: SaleValue) =>
  typeof v === 'string' && (field === 'commission' || field === 'sale_amount') ? Types.Decimal128.fromString(v) : v;

type Query = Record<string, unknown>;

function compile(c: SaleCondition): Query {
  if ('allOf' in c) {
    const all = c.allOf.map(compile).filter((q) => Object.keys(q).length);
    return all.length ? { $and: all } : {};
  }
  if ('anyOf' in c) return { $or: c.anyOf.map(compile) };
  if ('noneOf' in c) return { $nor: c.noneOf.map(compile) };
  const f = STORED[c.field];
  // Absent (null) alone: the plain equality MongoDB documents for a missing field.
  if ('in' in c) return c.in.length === 1 && c.in[0] === null ? { [f]: null } : { [f]: { $in: c.in.map((v) => stored(c.field, v)) } };
  if ('notIn' in c) return c.notIn.length === 1 && c.notIn[0] === null ? { [f]: { $ne: null } } : { [f]: { $nin: c.notIn.map((v) => stored(c.field, v)) } };
  if ('like' in c) return { [f]: { $in: c.like } };
  if ('notLike' in c) return { [f]: { $nin: c.notLike } };
  const range: Query = {};
  for (const [op, v] of Object.entries(c.range)) if (v !== undefined) range[`$${op}`] = stored(c.field, v);
  return { [f]: range };
}

function compileSort(keys: SaleSort[]): { sort: Record<string, 1 | -1>; computed: Record<string, unknown> } {
  const sort: Record<string, 1 | -1> = {};
  const computed: Record<string, unknown> = {};
  for (const k of keys) {
    if (k.by === 'status_rank') {
      computed._status_rank = { $indexOfArray: [k.order, '$status'] };
      sort._status_rank = k.dir;
    } else if (k.by === 'program_rank') {
      computed._offer_rank = { $indexOfArray: [k.order, '$program_id'] };
      sort._offer_rank = k.dir;
    } else if (k.by === 'approved_commission') {
      computed._approved_payout = { $cond: [{ $eq: ['$status', 'approved'] }, '$commission', Types.Decimal128.fromString('0')] };
      sort._approved_payout = k.dir;
    } else if (!(STORED[k.by] in sort)) sort[STORED[k.by]] = k.dir;
  }
  if (!('occurred_at' in sort)) sort.occurred_at = -1;
  if (!('_id' in sort)) sort._id = 1;
  return { sort, computed };
}

/** A page of the caller's merchant-reported sales (not ledger entries) matching every condition, with their count and totals. */
export const searchSales = useCase(SALES_POLICY, async function searchSales(deps: ReportsDeps, principal: Principal, q: SaleSearch): Promise<SaleSearchResult> {
  const conditions = q.where.map(compile).filter((c) => Object.keys(c).length);
  const filter: Query = {
    publisher_id: principal.publisher._id,
    source: 'v1',
    occurred_at: { $gte: q.from, $lt: q.to },
    ...(conditions.length ? { $and: conditions } : {}),
  };
  const { sort, computed } = compileSort(q.sort);
  const sales = Object.keys(computed).length
    ? await own(deps).Conversion.aggregate<ConversionRecord>([
        { $match: filter },
        { $addFields: computed },
        { $sort: sort },
        { $skip: q.skip },
        { $limit: q.limit },
        { $project: { events: 0, order_ref: 0 } },
      ])
    : await own(deps).Conversion.find(filter, { events: 0, order_ref: 0 }).sort(sort).skip(q.skip).limit(q.limit).lean<ConversionRecord[]>();
  const count = await own(deps).Conversion.countDocuments(filter);
  if (!q.totals) return { sales, count };
  const sums = await own(deps).Conversion.aggregate<{ _id: string; payout: { toString(): string }; sale: { toString(): string } }>([
    { $match: filter },
    { $group: { _id: '$currency', payout: { $sum: '$commission' }, sale: { $sum: '$sale_amount' } } },
  ]);
  return { sales, count, totals: sums.map((s) => ({ currency: s._id, commission: s.payout, sale_amount: s.sale })) };
});

/** The stats read model's facts of the caller's account over a range (clicks and sales per bucket, sub-ID and program as asked). */
export const accountFacts = useCase(
  SALES_POLICY,
  async function accountFacts(deps: ReportsDeps, principal: Principal, q: Omit<StatsQuery, 'publisherId'>): Promise<Fact[]> {
    return readFacts(deps, { ...q, publisherId: principal.publisher._id });
  },
);
