/** The read model's cells: which cell a fact lands in, which slots it adds to, and that a fact taken back leaves nothing. */
import { describe, expect, it } from 'vitest';
import { cellId, Increments, nodesOf, prefixNodes, QUARTERS, type Attribution, type CellDims, type ConversionFacts } from './cells';

const dims = (over: Partial<CellDims> = {}): CellDims => ({
  publisher_id: 'pub_a',
  v: 'ps',
  g: 'd',
  t: new Date('2026-11-02T00:00:00Z'),
  program_id: 7,
  campaign_id: 501,
  subid: 'sub',
  ...over,
});

const A: Attribution = { publisher_id: 'pub_a', program_id: 7, campaign_id: 501, subid: 'sub' };
const SALE: ConversionFacts = { status: 'pending', paid: false, source: 'v1', currency: 'EUR', sale_amount: '80.00', commission: '6.40' };
const at = Date.parse('2026-11-02T10:20:00Z');

describe('cell ids', () => {
  it('are one id per identity, and differ in every dimension', () => {
    expect(cellId(dims())).toBe(cellId(dims()));
    expect(cellId(dims())).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const others = [
      dims({ publisher_id: 'pub_b' }),
      dims({ v: 'p' }),
      dims({ g: 'm' }),
      dims({ t: new Date('2026-11-03T00:00:00Z') }),
      dims({ program_id: 8 }),
      dims({ campaign_id: 502 }),
      dims({ subid: 'other' }),
    ];
    expect(new Set([dims(), ...others].map(cellId)).size).toBe(others.length + 1);
  });

  it("tell an empty sub-ID from no sub-ID, and a link cell's link from another's", () => {
    expect(cellId(dims({ subid: '' }))).not.toBe(cellId(dims({ subid: null })));
    expect(cellId(dims({ v: 'l', link_id: 'lnk_1' }))).not.toBe(cellId(dims({ v: 'l', link_id: 'lnk_2' })));
    // Only link cells carry the link.
    expect(cellId(dims({ link_id: 'lnk_1' }))).toBe(cellId(dims({ link_id: 'lnk_2' })));
  });
});

describe('Fenwick slots', () => {
  it('a count in a leaf is found by the prefix sums after it, and by none before it', () => {
    for (const leaf of [0, 1, 40, QUARTERS - 1]) {
      const added = new Set(nodesOf(leaf));
      for (let i = 0; i <= QUARTERS; i++) {
        const seen = prefixNodes(i).filter((n) => added.has(n)).length;
        expect(seen, `leaf ${leaf}, prefix ${i}`).toBe(i > leaf ? 1 : 0);
      }
    }
  });
});

describe('increments', () => {
  it('a click adds to the account, program, sub-ID and program-and-sub-ID cells of its day and month, and a link cell only through a link', () => {
    const plain = new Increments();
    plain.clicks(A, at);
    const views = (inc: Increments) => [...inc.cells.values()].map((c) => `${c.dims.v}${c.dims.g}`).sort();
    expect(views(plain)).toEqual(['ad', 'am', 'pd', 'pm', 'psd', 'psm', 'sd', 'sm']);
    const linked = new Increments();
    linked.clicks({ ...A, link_id: 'lnk_1' }, at);
    expect(views(linked)).toEqual(['ad', 'am', 'ld', 'lm', 'pd', 'pm', 'psd', 'psm', 'sd', 'sm']);
    // The day cell starts at the UTC day, the month cell at the UTC month; the account cell drops program and sub-ID.
    const account = [...plain.cells.values()].find((c) => c.dims.v === 'a' && c.dims.g === 'm')!;
    expect(account.dims).toMatchObject({ t: new Date('2026-11-01T00:00:00Z'), program_id: null, campaign_id: null, subid: null });
  });

  it('counts a conversion per currency, status, source and paid, with exact money', () => {
    const inc = new Increments();
    inc.conversion(A, at, SALE, 1);
    inc.conversion(A, at, { ...SALE, sale_amount: '0.10', commission: '0.01' }, 1);
    const day = [...inc.cells.values()].find((c) => c.dims.v === 'a' && c.dims.g === 'd')!;
    const slot = `f${nodesOf(Math.floor((at - Date.parse('2026-11-02T00:00:00Z')) / 900_000))[0]}`;
    expect(day.counts[`s.${slot}.EUR_pending_v1_0.n`]).toBe(2);
    expect(day.money[`s.${slot}.EUR_pending_v1_0.a`]).toBe('80.10');
    expect(day.money[`s.${slot}.EUR_pending_v1_0.m`]).toBe('6.41');
  });

  it('moves a conversion from one state to another: taking it back out leaves no non-zero increment', () => {
    const inc = new Increments();
    inc.conversion(A, at, SALE, 1);
    inc.clicks(A, at, 3);
    inc.conversion(A, at, SALE, -1);
    inc.clicks(A, at, -3);
    expect(inc.nonZero()).toEqual([]);
    const moved = new Increments();
    moved.conversion(A, at, SALE, -1);
    moved.conversion(A, at, { ...SALE, status: 'approved' }, 1);
    const keys = moved.nonZero().flatMap(([, c]) => Object.keys(c.counts));
    expect(keys.some((k) => k.endsWith('EUR_pending_v1_0.n'))).toBe(true);
    expect(keys.some((k) => k.endsWith('EUR_approved_v1_0.n'))).toBe(true);
  });
});
