/**
 * getConversions' filters and sort as the conversions domain's sale search (`searchSales`), so the
 * database filters, sorts and pages (the request reads the page, not the range). Each HasOffers
 * field maps to a sale's field: `Stat.id` `id`, `Stat.datetime`/`Stat.date` `occurred_at` (read in
 * `hour_offset`), `Stat.offer_id` `program_id`, `Stat.affiliate_info1` `subid`, `Stat.payout`
 * `commission`, `Stat.sale_amount`, `Stat.currency`, `Stat.ad_id` `click_id`; fields with a handful
 * of values (`Stat.conversion_status`, `Offer.name`) are tested on those values and become `in`;
 * fields the platform does not track (always '' or 0) either keep every row or none.
 */
import type { ConversionStatus } from '@cw/conversions';
import type { SaleAmountField, SaleCondition, SaleField, SaleSort, SaleTextField } from '@cw/reports';
import { Apiv3Error } from './params';
import { likePattern, testOf, type FilterSpec, type Value } from './filters';

/** Keeps no sale. */
const NOTHING: SaleCondition = { field: 'id', in: [] };
/** Keeps every sale. */
const EVERYTHING: SaleCondition = { allOf: [] };

/** What HasOffers calls each status (`declined` is `rejected` there). */
export const STATUS_NAMES: Record<ConversionStatus, string> = { approved: 'approved', pending: 'pending', declined: 'rejected' };

const CONSTANTS: Record<string, Value> = {
  'Stat.affiliate_info2': '',
  'Stat.affiliate_info3': '',
  'Stat.affiliate_info4': '',
  'Stat.affiliate_info5': '',
  'Stat.ip': '',
  'Stat.source': '',
  'Stat.goal_id': 0,
};
const TEXT: Record<string, SaleTextField> = { 'Stat.id': 'id', 'Stat.currency': 'currency', 'Stat.affiliate_info1': 'subid', 'Stat.ad_id': 'click_id' };
const NUMBERS: Record<string, SaleAmountField | 'program_id'> = {
  'Stat.offer_id': 'program_id',
  'Stat.payout': 'commission',
  'Stat.sale_amount': 'sale_amount',
};
const NUMBER = /^-?\d{1,20}(\.\d{1,20})?$/;

const COMPARISONS: Record<string, 'lt' | 'lte' | 'gt' | 'gte'> = {
  LESS_THAN: 'lt',
  LESS_THAN_OR_EQUAL_TO: 'lte',
  GREATER_THAN: 'gt',
  GREATER_THAN_OR_EQUAL_TO: 'gte',
};

const empty = (field: SaleTextField): SaleCondition => ({ field, in: [null, ''] });
const notEmpty = (field: SaleTextField): SaleCondition => ({ field, notIn: [null, ''] });

/** A text field ('' and absent are the same value, as the rows show them). */
function textCondition(field: SaleTextField, s: FilterSpec): SaleCondition {
  const { conditional: c, values } = s;
  const withEmpty = (vs: string[]): Array<string | null> => (vs.includes('') ? [...vs.filter((v) => v !== ''), null, ''] : vs);
  // An empty value is the smallest text.
  const orEmpty = (cond: SaleCondition): SaleCondition => (testOf(s)('') ? { anyOf: [cond, empty(field)] } : cond);
  const op = Object.hasOwn(COMPARISONS, c) ? COMPARISONS[c] : undefined;
  if (op) return orEmpty({ field, range: { [op]: values[0] } });
  switch (c) {
    case 'EQUAL_TO':
      return { field, in: withEmpty(values) };
    case 'NOT_EQUAL_TO':
      return { field, notIn: withEmpty(values) };
    case 'BETWEEN':
      return orEmpty({ field, range: { gte: values[0], lte: values[1] } });
    case 'LIKE':
      return orEmpty({ field, like: values.map(likePattern) });
    case 'NOT_LIKE':
      return testOf(s)('') ? { field, notLike: values.map(likePattern) } : { allOf: [{ field, notLike: values.map(likePattern) }, notEmpty(field)] };
    case 'NULL':
      return empty(field);
    default:
      return notEmpty(field);
  }
}

/** A number field (amounts are decimal strings: compared exactly). */
function numberCondition(name: string, field: SaleAmountField | 'program_id', s: FilterSpec): SaleCondition {
  const { conditional: c, values } = s;
  if (c === 'NULL') return field === 'program_id' ? { field, in: [null] } : NOTHING;
  if (c === 'NOT_NULL') return field === 'program_id' ? { field, notIn: [null] } : EVERYTHING;
  if (c === 'LIKE' || c === 'NOT_LIKE') throw new Apiv3Error(400, `filters[${name}] ${c} applies to text fields; ${name} is a number`);
  const num = (v: string) => {
    if (!NUMBER.test(v)) throw new Apiv3Error(400, `filters[${name}][values] must be numbers, got "${v.slice(0, 40)}"`);
    return field === 'program_id' ? Number(v) : v;
  };
  switch (c) {
    case 'EQUAL_TO':
      return { field, in: values.map(num) };
    case 'NOT_EQUAL_TO':
      return { field, notIn: values.map(num) };
    case 'LESS_THAN':
      return { field, range: { lt: num(s.first) } };
    case 'LESS_THAN_OR_EQUAL_TO':
      return { field, range: { lte: num(s.first) } };
    case 'GREATER_THAN':
      return { field, range: { gt: num(s.first) } };
    case 'GREATER_THAN_OR_EQUAL_TO':
      return { field, range: { gte: num(s.first) } };
    default:
      return { field, range: { gte: num(s.first), lte: num(s.second) } };
  }
}

/** `Stat.approved_payout`: the commission of an approved sale, else 0. */
function approvedPayoutCondition(s: FilterSpec): SaleCondition {
  const ofApproved: SaleCondition = { allOf: [{ field: 'status', in: ['approved'] }, numberCondition('Stat.approved_payout', 'commission', s)] };
  return testOf(s)('0') ? { anyOf: [ofApproved, { field: 'status', notIn: ['approved'] }] } : ofApproved;
}

/**
 * `Stat.datetime` (to the second) or `Stat.date` (the day) in the caller's offset, as a range of
 * `occurred_at`: each value names an interval [start, end).
 */
function timeCondition(name: string, s: FilterSpec, offsetMs: number): SaleCondition {
  const { conditional: c, values } = s;
  if (c === 'NULL') return NOTHING;
  if (c === 'NOT_NULL') return EVERYTHING;
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
  const field = 'occurred_at';
  const within = ([a, b]: [Date, Date]): SaleCondition => ({ field, range: { gte: a, lt: b } });
  switch (c) {
    case 'EQUAL_TO':
      return { anyOf: values.map(span).map(within) };
    case 'NOT_EQUAL_TO':
      return { noneOf: values.map(span).map(within) };
    case 'LESS_THAN':
      return { field, range: { lt: span(s.first)[0] } };
    case 'LESS_THAN_OR_EQUAL_TO':
      return { field, range: { lt: span(s.first)[1] } };
    case 'GREATER_THAN':
      return { field, range: { gte: span(s.first)[1] } };
    case 'GREATER_THAN_OR_EQUAL_TO':
      return { field, range: { gte: span(s.first)[0] } };
    default:
      return { field, range: { gte: span(s.first)[0], lt: span(s.second)[1] } };
  }
}

/** The conditions of `specs` on sales; `programs` names every program (for `Offer.name`). */
export function conversionConditions(specs: FilterSpec[], offsetMs: number, programs: Map<number, string>): SaleCondition[] {
  return specs.map((s): SaleCondition => {
    const name = s.field;
    if (Object.hasOwn(CONSTANTS, name)) return testOf(s)(CONSTANTS[name] ?? null) ? EVERYTHING : NOTHING;
    const text = TEXT[name];
    if (text) return textCondition(text, s);
    const number = NUMBERS[name];
    if (number) return numberCondition(name, number, s);
    if (name === 'Stat.approved_payout') return approvedPayoutCondition(s);
    if (name === 'Stat.datetime' || name === 'Stat.date') return timeCondition(name, s, offsetMs);
    const test = testOf(s);
    if (name === 'Stat.conversion_status')
      return {
        field: 'status',
        in: (Object.entries(STATUS_NAMES) as Array<[ConversionStatus, string]>).filter(([, shown]) => test(shown)).map(([k]) => k),
      };
    // Offer.name: the programs whose name passes (a sale without a program has the name '').
    const ids = [...programs].filter(([, n]) => test(n)).map(([id]) => id);
    return test('')
      ? {
          anyOf: [
            { field: 'program_id', in: ids },
            { field: 'program_id', in: [null] },
          ],
        }
      : { field: 'program_id', in: ids };
  });
}

/**
 * The sort of `sort` (HasOffers fields) as the sale's fields (the search then orders newest first,
 * then by id: the order rows had before any sort); fields shown as computed values sort on a
 * ranking (status, program name) or on the approved commission.
 */
export function conversionSort(sort: Array<[string, 1 | -1]>, programs: Map<number, string>): SaleSort[] {
  const fields: Record<string, SaleField> = {
    ...TEXT,
    ...NUMBERS,
    'Stat.datetime': 'occurred_at',
    'Stat.date': 'occurred_at',
  };
  const out: SaleSort[] = [];
  for (const [name, dir] of sort) {
    if (name in CONSTANTS) continue;
    const field = fields[name];
    if (field) out.push({ by: field, dir });
    else if (name === 'Stat.conversion_status') {
      const order = (Object.entries(STATUS_NAMES) as Array<[ConversionStatus, string]>).sort(([, a], [, b]) => a.localeCompare(b)).map(([k]) => k);
      out.push({ by: 'status_rank', order, dir });
    } else if (name === 'Stat.approved_payout') out.push({ by: 'approved_commission', dir });
    else if (name === 'Offer.name') {
      // Programs ranked by name; a sale without a program ('') first.
      const order = [...programs].sort(([, a], [, b]) => a.localeCompare(b)).map(([id]) => id);
      out.push({ by: 'program_rank', order, dir });
    }
  }
  return out;
}
