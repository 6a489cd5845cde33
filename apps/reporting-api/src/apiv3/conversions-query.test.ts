import { describe, expect, it } from 'vitest';
import { conversionConditions, conversionSort } from './conversions-query';
import { filterSpecs } from './filters';
import { Apiv3Error } from './params';

const FIELDS = ['Stat.id', 'Stat.affiliate_info1', 'Stat.affiliate_info2', 'Stat.payout', 'Stat.offer_id', 'Stat.date', 'Stat.conversion_status', 'Offer.name'];
const conditions = (filters: Record<string, unknown>, programs = new Map<number, string>(), offsetMs = 0) =>
  conversionConditions(filterSpecs({ filters }, FIELDS), offsetMs, programs);

describe("getConversions' filters as the conversions domain's sale search", () => {
  it("maps HasOffers' fields to a sale's fields, an empty text value matching sales without one", () => {
    expect(conditions({ 'Stat.affiliate_info1': { conditional: 'EQUAL_TO', values: ['fb', ''] } })).toEqual([{ field: 'subid', in: ['fb', null, ''] }]);
    expect(conditions({ 'Stat.payout': { conditional: 'BETWEEN', values: ['3', '5'] } })).toEqual([{ field: 'commission', range: { gte: '3', lte: '5' } }]);
    expect(conditions({ 'Stat.offer_id': { conditional: 'NULL' } })).toEqual([{ field: 'program_id', in: [null] }]);
  });

  it('reads a day in the caller’s hour_offset as a range of occurred_at', () => {
    expect(conditions({ 'Stat.date': '2032-05-02' }, new Map(), 10 * 3_600_000)).toEqual([
      { anyOf: [{ field: 'occurred_at', range: { gte: new Date('2032-05-01T14:00:00Z'), lt: new Date('2032-05-02T14:00:00Z') } }] },
    ]);
  });

  it('keeps every sale or none for a field the platform does not track, and statuses and offer names by their values', () => {
    expect(conditions({ 'Stat.affiliate_info2': { conditional: 'NULL' } })).toEqual([{ allOf: [] }]);
    expect(conditions({ 'Stat.affiliate_info2': { conditional: 'NOT_NULL' } })).toEqual([{ field: 'id', in: [] }]);
    expect(conditions({ 'Stat.conversion_status': 'rejected' })).toEqual([{ field: 'status', in: ['declined'] }]);
    expect(
      conditions(
        { 'Offer.name': { conditional: 'LIKE', values: ['shoe%'] } },
        new Map([
          [1, 'Shoes'],
          [2, 'Books'],
        ]),
      ),
    ).toEqual([{ field: 'program_id', in: [1] }]);
  });

  it('refuses what HasOffers refuses, in its error', () => {
    expect(() => conditions({ 'Stat.payout': 'cheap' })).toThrow(Apiv3Error);
    expect(() => conditions({ 'Stat.payout': { conditional: 'LIKE', values: ['1%'] } })).toThrow(/applies to text fields/);
  });

  it('sorts on the sale fields, statuses and offers ranked by their HasOffers names', () => {
    const programs = new Map([
      [1, 'Shoes'],
      [2, 'Books'],
    ]);
    expect(
      conversionSort(
        [
          ['Stat.payout', 1],
          ['Stat.conversion_status', -1],
          ['Offer.name', 1],
          ['Stat.affiliate_info2', 1],
        ],
        programs,
      ),
    ).toEqual([
      { by: 'commission', dir: 1 },
      { by: 'status_rank', order: ['approved', 'pending', 'declined'], dir: -1 },
      { by: 'program_rank', order: [2, 1], dir: 1 },
    ]);
  });
});
