import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEcbRateDays, parseEcbRates, ratesOn } from './ecb-rates';

const fixture = (name: string) => readFileSync(new URL(`../../test/fx/${name}`, import.meta.url), 'utf8');
const envelope = (cubes: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:subject>Reference rates</gesmes:subject><Cube>${cubes}</Cube></gesmes:Envelope>`;

describe("the ECB's reference-rate files", () => {
  it('reads the daily file: its day, the euro as base, every rate as the decimal string published', () => {
    const daily = parseEcbRates(fixture('eurofxref-daily.xml'));
    expect(daily.date).toBe('2025-06-27');
    expect(daily.base).toBe('EUR');
    expect(Object.keys(daily.rates)).toHaveLength(30);
    expect(daily.rates).toMatchObject({ USD: '1.1702', JPY: '169.21', GBP: '0.85365', HUF: '399.80', ISK: '142.60', IDR: '18993.06' });
    for (const rate of Object.values(daily.rates)) expect(typeof rate).toBe('string');
  });

  it('reads every day of a multi-day file (90-day, historical), newest first, and the newest as the rates', () => {
    const xml = fixture('eurofxref-hist-90d.xml');
    const days = parseEcbRateDays(xml);
    expect(days.map((d) => d.date)).toEqual(['2025-06-27', '2025-06-26', '2025-06-25']);
    expect(days[2]!.rates).toEqual({ USD: '1.1648', JPY: '169.3', GBP: '0.8542', CHF: '0.9381', SEK: '11.154', PLN: '4.2635' });
    expect(parseEcbRates(xml)).toEqual(days[0]);
    const reversed = envelope(
      `<Cube time='2025-06-25'><Cube currency='USD' rate='1.1648'/></Cube><Cube time='2025-06-26'><Cube currency='USD' rate='1.1695'/></Cube>`,
    );
    expect(parseEcbRateDays(reversed).map((d) => d.date)).toEqual(['2025-06-26', '2025-06-25']);
  });

  it("finds the rates in force on a day: that day's, or the last published before it (weekends, holidays)", () => {
    const days = parseEcbRateDays(fixture('eurofxref-hist-90d.xml'));
    expect(ratesOn(days, '2025-06-26')?.date).toBe('2025-06-26');
    expect(ratesOn(days, '2025-06-29')?.date).toBe('2025-06-27');
    expect(ratesOn(days, '2025-06-24')).toBeUndefined();
  });

  it.each([
    ['nothing', ''],
    ['plain text', 'rates: USD 1.17'],
    ['JSON', '{"USD": "1.1702"}'],
    ['an HTML error page', '<html><body><h1>503 Service Unavailable</h1></body></html>'],
    ['a cut-off download', fixture('eurofxref-daily.xml').slice(0, 600)],
    ['mismatched tags', '<gesmes:Envelope><Cube><Cube time="2025-06-27"></Cube></gesmes:Envelope>'],
    ['an envelope with no days', envelope('')],
    ['a day without a date', envelope(`<Cube><Cube currency='USD' rate='1.17'/></Cube>`)],
    ['a day that is not a date', envelope(`<Cube time='2025-02-30'><Cube currency='USD' rate='1.17'/></Cube>`)],
    ['a day as an element, not an attribute', envelope(`<Cube><time><a/></time><Cube currency='USD' rate='1.17'/></Cube>`)],
    ['a day with no rate', envelope(`<Cube time='2025-06-27'></Cube>`)],
    ['a rate with a comma', envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate='1,1702'/></Cube>`)],
    ['a rate in exponent form', envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate='1.17e0'/></Cube>`)],
    ['a negative rate', envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate='-1.17'/></Cube>`)],
    ['a zero rate', envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate='0.0000'/></Cube>`)],
    ['an empty rate', envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate=''/></Cube>`)],
    ['a rate as an element', envelope(`<Cube time='2025-06-27'><Cube currency='USD'><rate><x/></rate></Cube></Cube>`)],
    ['a lower-case currency', envelope(`<Cube time='2025-06-27'><Cube currency='usd' rate='1.17'/></Cube>`)],
    ['an unknown currency', envelope(`<Cube time='2025-06-27'><Cube currency='XYZ' rate='1.17'/></Cube>`)],
    ['the euro against itself', envelope(`<Cube time='2025-06-27'><Cube currency='EUR' rate='1'/></Cube>`)],
    ['a currency given twice', envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate='1.17'/><Cube currency='USD' rate='1.18'/></Cube>`)],
    [
      'a day given twice',
      envelope(`<Cube time='2025-06-27'><Cube currency='USD' rate='1.17'/></Cube><Cube time='2025-06-27'><Cube currency='USD' rate='1.18'/></Cube>`),
    ],
    [
      'entities defined in a DOCTYPE (never expanded)',
      `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "1.1"><!ENTITY b "&a;&a;&a;&a;">]><gesmes:Envelope><Cube><Cube time='2025-06-27'><Cube currency='USD' rate='&b;'/></Cube></Cube></gesmes:Envelope>`,
    ],
    ['not text at all', 42],
  ])('refuses %s with a 400 naming xml, never a crash', (_what, xml) => {
    expect(() => parseEcbRateDays(xml)).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_parameter', errors: [expect.objectContaining({ param: 'xml' })] }),
    );
  });
});
