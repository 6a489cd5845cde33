import { describe, expect, it } from 'vitest';
import { csvRowCounter, fileNameOf } from './csv-rows';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('the rows counted while a CSV arrives', () => {
  it('does not count the header line', () => {
    const c = csvRowCounter();
    expect(c.add(bytes('id,amount\n'))).toBe(0);
    expect(c.add(bytes('cnv_1,12.50\ncnv_2,3.00\n'))).toBe(2);
  });

  it('does not count a line break inside a quoted cell, nor a doubled quote as its end', () => {
    const c = csvRowCounter();
    expect(c.add(bytes('id,note\ncnv_1,"two\nlines"\ncnv_2,"say ""hi""\nthere"\r\ncnv_3,plain\r\n'))).toBe(3);
  });

  it('counts the same whichever way the bytes are split into chunks', () => {
    const csv = bytes('id,note\r\ncnv_1,"a\nb"\r\ncnv_2,"é, ü"\r\ncnv_3,x\r\n');
    for (const size of [1, 2, 3, 7, csv.length]) {
      const c = csvRowCounter();
      let rows = 0;
      for (let i = 0; i < csv.length; i += size) rows = c.add(csv.subarray(i, i + size));
      expect(rows).toBe(3);
    }
  });
});

describe('the saved file’s name', () => {
  it('is the one the server gives, else the fallback', () => {
    expect(fileNameOf('attachment; filename="conversions-2026-03-01-2026-03-31.csv"', 'conversions.csv')).toBe('conversions-2026-03-01-2026-03-31.csv');
    expect(fileNameOf('attachment', 'clicks.csv')).toBe('clicks.csv');
    expect(fileNameOf(null, 'clicks.csv')).toBe('clicks.csv');
  });
});
