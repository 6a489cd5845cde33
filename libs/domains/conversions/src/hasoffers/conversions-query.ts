/**
 * getConversions' filters and sort as one MongoDB query, so the database filters, sorts and pages
 * (the request reads the page, not the range). Each HasOffers field maps to what a conversion
 * stores: `Stat.id` `_id`, `Stat.datetime`/`Stat.date` `occurred_at` (read in `hour_offset`),
 * `Stat.offer_id` `program_id`, `Stat.affiliate_info1` `subid`, `Stat.payout` `commission`,
 * `Stat.sale_amount`, `Stat.currency`, `Stat.ad_id` `click_id`; fields with a handful of values
 * (`Stat.conversion_status`, `Offer.name`) are tested on those values and become `$in`; fields the
 * platform does not track (always '' or 0) either keep every row or none.
 */
import { Types } from 'mongoose';
import { Apiv3Error } from './params';
import { likePattern, testOf, type FilterSpec, type Value } from './filters';

type Query = Record<string, unknown>;
const NOTHING: Query = { _id: { $in: [] } };

/** What HasOffers calls each status (`declined` is `rejected` there). */
export const STATUS_NAMES: Record<string, string> = { approved: 'approved', pending: 'pending', declined: 'rejected' };

const CONSTANTS: Record<string, Value> = {
  'Stat.affiliate_info2': '',
  'Stat.affiliate_info3': '',
  'Stat.affiliate_info4': '',
  'Stat.affiliate_info5': '',
  'Stat.ip': '',
  'Stat.source': '',
  'Stat.goal_id': 0,
};
const TEXT: Record<string, string> = { 'Stat.id': '_id', 'Stat.currency': 'currency', 'Stat.affiliate_info1': 'subid', 'Stat.ad_id': 'click_id' };
const NUMBERS: Record<string, { field: string; decimal: boolean }> = {
  'Stat.offer_id': { field: 'program_id', decimal: false },
  'Stat.payout': { field: 'commission', decimal: true },
  'Stat.sale_amount': { field: 'sale_amount', decimal: true },
};
const NUMBER = /^-?\d{1,20}(\.\d{1,20})?$/;

const empty = (field: string): Query => ({ [field]: { $in: [null, ''] } });

/** A text field ('' and absent are the same value, as the rows show them). */
function textCondition(field: string, s: FilterSpec): Query {
  const { conditional: c, values } = s;
  const withEmpty = (vs: string[]) => (vs.includes('') ? [...vs.filter((v) => v !== ''), null, ''] : vs);
  const op = { LESS_THAN: '$lt', LESS_THAN_OR_EQUAL_TO: '$lte', GREATER_THAN: '$gt', GREATER_THAN_OR_EQUAL_TO: '$gte' }[c];
  if (op) {
    const cond = { [field]: { [op]: values[0] } };
    // An empty value is the smallest text.
    return testOf(s)('') ? { $or: [cond, empty(field)] } : cond;
  }
  switch (c) {
    case 'EQUAL_TO':
      return { [field]: { $in: withEmpty(values) } };
    case 'NOT_EQUAL_TO':
      return { [field]: { $nin: withEmpty(values) } };
    case 'BETWEEN': {
      const cond = { [field]: { $gte: values[0], $lte: values[1] } };
      return testOf(s)('') ? { $or: [cond, empty(field)] } : cond;
    }
    case 'LIKE': {
      const cond = { [field]: { $in: values.map(likePattern) } };
      return testOf(s)('') ? { $or: [cond, empty(field)] } : cond;
    }
    case 'NOT_LIKE':
      return testOf(s)('')
        ? { [field]: { $nin: values.map(likePattern) } }
        : { $and: [{ [field]: { $nin: values.map(likePattern) } }, { [field]: { $nin: [null, ''] } }] };
    case 'NULL':
      return empty(field);
    default:
      return { [field]: { $nin: [null, ''] } };
  }
}

/** A number field (amounts are Decimal128: compared exactly). */
function numberCondition(name: string, field: string, decimal: boolean, s: FilterSpec): Query {
  const { conditional: c, values } = s;
  if (c === 'NULL') return field === 'program_id' ? { [field]: null } : NOTHING;
  if (c === 'NOT_NULL') return field === 'program_id' ? { [field]: { $ne: null } } : {};
  if (c === 'LIKE' || c === 'NOT_LIKE') throw new Apiv3Error(400, `filters[${name}] ${c} applies to text fields; ${name} is a number`);
  const num = (v: string) => {
    if (!NUMBER.test(v)) throw new Apiv3Error(400, `filters[${name}][values] must be numbers, got "${v.slice(0, 40)}"`);
    return decimal ? Types.Decimal128.fromString(v) : Number(v);
  };
  switch (c) {
    case 'EQUAL_TO':
      return { [field]: { $in: values.map(num) } };
    case 'NOT_EQUAL_TO':
      return { [field]: { $nin: values.map(num) } };
    case 'LESS_THAN':
      return { [field]: { $lt: num(s.first) } };
    case 'LESS_THAN_OR_EQUAL_TO':
      return { [field]: { $lte: num(s.first) } };
    case 'GREATER_THAN':
      return { [field]: { $gt: num(s.first) } };
    case 'GREATER_THAN_OR_EQUAL_TO':
      return { [field]: { $gte: num(s.first) } };
    default:
      return { [field]: { $gte: num(s.first), $lte: num(s.second) } };
  }
}

/** `Stat.approved_payout`: the commission of an approved sale, else 0. */
function approvedPayoutCondition(s: FilterSpec): Query {
  const ofApproved = { $and: [{ status: 'approved' }, numberCondition('Stat.approved_payout', 'commission', true, s)] };
  return testOf(s)('0') ? { $or: [ofApproved, { status: { $ne: 'approved' } }] } : ofApproved;
}

/**
 * `Stat.datetime` (to the second) or `Stat.date` (the day) in the caller's offset, as a range of
 * `occurred_at`: each value names an interval [start, end).
 */
function timeCondition(name: string, s: FilterSpec, offsetMs: number): Query {
  const { conditional: c, values } = s;
  if (c === 'NULL') return NOTHING;
  if (c === 'NOT_NULL') return {};
  if (c === 'LIKE' || c === 'NOT_LIKE') throw new Apiv3Error(400, `filters[${name}] ${c} applies to text fields; use BETWEEN or the comparisons for times`);
  const span = (v: string): [Date, Date] => {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?$/.exec(v);
    // Groups 1-3 always match when m does; 4-6 together or not at all.
    const at = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)) : NaN;
    if (!m || !Number.isFinite(at) || new Date(at).getUTCDate() !== +m[3]!)
      throw new Apiv3Error(
        400,
        `filters[${name}][values] must be YYYY-MM-DD${name === 'Stat.datetime' ? ' or YYYY-MM-DD HH:MM:SS' : ''}, got "${v.slice(0, 40)}"`,
      );
    if (name === 'Stat.date' && m[4] !== undefined) throw new Apiv3Error(400, `filters[${name}][values] must be YYYY-MM-DD, got "${v.slice(0, 40)}"`);
    // A day names the whole day; a time its second.
    return [new Date(at - offsetMs), new Date(at - offsetMs + (m[4] === undefined ? 86_400_000 : 1000))];
  };
  const f = 'occurred_at';
  switch (c) {
    case 'EQUAL_TO':
      return { $or: values.map(span).map(([a, b]) => ({ [f]: { $gte: a, $lt: b } })) };
    case 'NOT_EQUAL_TO':
      return { $nor: values.map(span).map(([a, b]) => ({ [f]: { $gte: a, $lt: b } })) };
    case 'LESS_THAN':
      return { [f]: { $lt: span(s.first)[0] } };
    case 'LESS_THAN_OR_EQUAL_TO':
      return { [f]: { $lt: span(s.first)[1] } };
    case 'GREATER_THAN':
      return { [f]: { $gte: span(s.first)[1] } };
    case 'GREATER_THAN_OR_EQUAL_TO':
      return { [f]: { $gte: span(s.first)[0] } };
    default:
      return { [f]: { $gte: span(s.first)[0], $lt: span(s.second)[1] } };
  }
}

/** The conditions of `specs` on conversions; `programs` names every program (for `Offer.name`). */
export function conversionConditions(specs: FilterSpec[], offsetMs: number, programs: Map<number, string>): Query[] {
  return specs.map((s) => {
    const name = s.field;
    if (Object.hasOwn(CONSTANTS, name)) return testOf(s)(CONSTANTS[name] ?? null) ? {} : NOTHING;
    const text = TEXT[name];
    if (text) return textCondition(text, s);
    const number = NUMBERS[name];
    if (number) return numberCondition(name, number.field, number.decimal, s);
    if (name === 'Stat.approved_payout') return approvedPayoutCondition(s);
    if (name === 'Stat.datetime' || name === 'Stat.date') return timeCondition(name, s, offsetMs);
    const test = testOf(s);
    if (name === 'Stat.conversion_status')
      return {
        status: {
          $in: Object.entries(STATUS_NAMES)
            .filter(([, shown]) => test(shown))
            .map(([k]) => k),
        },
      };
    // Offer.name: the programs whose name passes (a sale without a program has the name '').
    const ids = [...programs].filter(([, n]) => test(n)).map(([id]) => id);
    return test('') ? { $or: [{ program_id: { $in: ids } }, { program_id: null }] } : { program_id: { $in: ids } };
  });
}

/**
 * The sort of `sort` (HasOffers fields) as stored fields, then newest first and `_id` (the order
 * rows had before any sort). Fields shown as computed values sort on a computed key (`$addFields`).
 */
export function conversionSort(
  sort: Array<[string, 1 | -1]>,
  programs: Map<number, string>,
): { sort: Record<string, 1 | -1>; computed: Record<string, unknown> } {
  const out: Record<string, 1 | -1> = {};
  const computed: Record<string, unknown> = {};
  const stored: Record<string, string> = {
    ...TEXT,
    'Stat.offer_id': 'program_id',
    'Stat.payout': 'commission',
    'Stat.sale_amount': 'sale_amount',
    'Stat.datetime': 'occurred_at',
    'Stat.date': 'occurred_at',
  };
  for (const [name, d] of sort) {
    if (name in CONSTANTS) continue;
    const field = stored[name];
    if (field) {
      if (!(field in out)) out[field] = d;
    } else if (name === 'Stat.conversion_status') {
      const order = Object.entries(STATUS_NAMES)
        .sort(([, a], [, b]) => a.localeCompare(b))
        .map(([k]) => k);
      computed._status_rank = { $indexOfArray: [order, '$status'] };
      out._status_rank = d;
    } else if (name === 'Stat.approved_payout') {
      computed._approved_payout = { $cond: [{ $eq: ['$status', 'approved'] }, '$commission', Types.Decimal128.fromString('0')] };
      out._approved_payout = d;
    } else if (name === 'Offer.name') {
      // Programs ranked by name; a sale without a program ('') first.
      const order = [...programs].sort(([, a], [, b]) => a.localeCompare(b)).map(([id]) => id);
      computed._offer_rank = { $indexOfArray: [order, '$program_id'] };
      out._offer_rank = d;
    }
  }
  if (!('occurred_at' in out)) out.occurred_at = -1;
  if (!('_id' in out)) out._id = 1;
  return { sort: out, computed };
}
