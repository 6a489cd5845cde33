import { describe, expect, it } from 'vitest';
import { clickFilterProblems, clickFiltersOf, conversionFilterProblems, conversionFiltersOf } from './activity-filters';

const q = (s: string) => new URLSearchParams(s);

describe('the conversions’ filters in the URL', () => {
  it('are read back from a shared link', () => {
    expect(conversionFiltersOf(q('date_from=2026-03-01&date_to=2026-03-31&status=approved&subid=spring.sale&channel=code&cursor=abc'))).toEqual({
      date_from: '2026-03-01',
      date_to: '2026-03-31',
      status: 'approved',
      subid: 'spring.sale',
      channel: 'code',
    });
  });

  it('leave out what the API would refuse, so a hand-edited link still shows the list', () => {
    expect(conversionFiltersOf(q('date_from=March&status=paid&subid=has space&channel=tv'))).toEqual({});
    expect(conversionFiltersOf(q(`subid=${'x'.repeat(101)}`))).toEqual({});
  });
});

describe('the clicks’ filters in the URL', () => {
  it('are read back, bots only when asked for', () => {
    expect(clickFiltersOf(q('sub_id=spring&campaign_id=1001&deeplink_id=aB3x&include_bots=true'))).toEqual({
      sub_id: 'spring',
      campaign_id: '1001',
      deeplink_id: 'aB3x',
      include_bots: true,
    });
    expect(clickFiltersOf(q('include_bots=yes'))).toEqual({});
  });

  it('leave out a merchant id that is not a whole number and a link id that is not letters and digits', () => {
    expect(clickFiltersOf(q('campaign_id=0&deeplink_id=a-b'))).toEqual({});
    expect(clickFiltersOf(q('campaign_id=12.5'))).toEqual({});
  });
});

describe('the filter forms', () => {
  it('refuse an end date before the start date and a sub-ID with other characters', () => {
    expect(conversionFilterProblems('2026-03-31', '2026-03-01', 'spring sale')).toEqual({
      to: 'The end date is before the start date.',
      subid: 'Letters, digits and . _ ~ - only, up to 100.',
    });
    expect(conversionFilterProblems('2026-03-01', '2026-03-01', ' spring ')).toEqual({});
    expect(conversionFilterProblems('', '2026-03-01', '')).toEqual({});
  });

  it('say what a merchant id and a link id are', () => {
    expect(clickFilterProblems('ok', 'ACME', 'a/b')).toEqual({
      campaign: 'A merchant id is a whole number.',
      link: 'A link id is letters and digits, up to 64.',
    });
    expect(clickFilterProblems('', ' 1001 ', '')).toEqual({});
  });
});
