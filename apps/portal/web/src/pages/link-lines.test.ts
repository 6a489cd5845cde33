import { describe, expect, it } from 'vitest';
import { lastDays, parseLines, requestOf, SUBID_HINT } from './link-lines';

describe('one link’s request', () => {
  it('sends the program as a number and leaves out an empty landing URL or sub-ID', () => {
    expect(requestOf('1001', '  ', '')).toEqual({ program_id: 1001 });
    expect(requestOf('1001', ' https://shop.example/a ', ' spring ')).toEqual({ program_id: 1001, landing_url: 'https://shop.example/a', subid: 'spring' });
  });
});

describe('the batch box', () => {
  it('reads a landing URL, a sub-ID or both per line, in either order, skipping empty lines', () => {
    const lines = parseLines('https://shop.example/a, spring\n\nsummer https://shop.example/b\nautumn\nhttps://shop.example/c', '7');
    expect(lines.map((l) => [l.line, l.input, l.problem])).toEqual([
      [1, { program_id: 7, landing_url: 'https://shop.example/a', subid: 'spring' }, undefined],
      [3, { program_id: 7, landing_url: 'https://shop.example/b', subid: 'summer' }, undefined],
      [4, { program_id: 7, subid: 'autumn' }, undefined],
      [5, { program_id: 7, landing_url: 'https://shop.example/c' }, undefined],
    ]);
  });

  it('says which line has two landing URLs or two sub-IDs', () => {
    const [two, subids] = parseLines('https://a.example https://b.example\nspring summer', '7');
    expect(two).toMatchObject({ line: 1, problem: 'Has two landing URLs: one per line.' });
    expect(two?.input).toBeUndefined();
    expect(subids).toMatchObject({ line: 2, problem: 'Has 2 sub-IDs (“spring”, “summer”): one per line, without spaces.' });
  });

  it('says what the API would refuse, field by field, with the sub-ID’s rule spelled out', () => {
    const [bad] = parseLines('summer!sale', '7');
    expect(bad?.problem).toBe(`Sub-ID: ${SUBID_HINT}`);
    const [url] = parseLines('https://', '7');
    expect(url?.problem).toBe('Landing URL: Enter a full URL, like https://example.com.');
  });
});

describe('the list’s last N days', () => {
  it('ends today in the account’s zone and spans N calendar days, across the change to summer time', () => {
    const now = new Date('2026-03-30T22:30:00Z'); // already 31 March in Berlin
    expect(lastDays(7, 'Europe/Berlin', now)).toEqual({ date_from: '2026-03-25', date_to: '2026-03-31' });
    expect(lastDays(7, 'America/New_York', now)).toEqual({ date_from: '2026-03-24', date_to: '2026-03-30' });
    expect(lastDays(1, 'UTC', now)).toEqual({ date_from: '2026-03-30', date_to: '2026-03-30' });
  });
});
