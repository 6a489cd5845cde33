import { describe, expect, it } from 'vitest';
import { insertAt, MACROS, previewUrl, SAMPLE_SALE } from './macros';

describe('the postback URL preview', () => {
  it('fills each macro with the sample sale’s value, URL-encoded', () => {
    const p = previewUrl('https://example.com/pb?subid={subid}&amount={commission}&cur={currency}&e={event}');
    expect(p).toEqual({ url: 'https://example.com/pb?subid=summer-sale&amount=12.50&cur=EUR&e=sale.approved', unknown: [] });
    expect(previewUrl('https://x.test/?s={subid}', { subid: 'a b&c=d/é' }).url).toBe('https://x.test/?s=a%20b%26c%3Dd%2F%C3%A9');
  });

  it('leaves a macro the server does not know as typed, and lists it once', () => {
    expect(previewUrl('https://x.test/?a={amount}&b={amount}&s={subid}&t={ }')).toEqual({
      url: 'https://x.test/?a={amount}&b={amount}&s=summer-sale&t={ }',
      unknown: ['amount', ' '],
    });
  });

  it('has a sample value for every macro offered', () => {
    for (const m of MACROS) expect(previewUrl(`{${m}}`).url).toBe(encodeURIComponent(SAMPLE_SALE[m]));
  });
});

describe('inserting a macro at the caret', () => {
  it('replaces the selection and puts the caret after the macro', () => {
    expect(insertAt('https://x.test/?s=&c=', '{subid}', 18, 18)).toEqual({ value: 'https://x.test/?s={subid}&c=', caret: 25 });
    expect(insertAt('abcXYZdef', '{event}', 3, 6)).toEqual({ value: 'abc{event}def', caret: 10 });
  });

  it('appends when the field has no selection', () => {
    expect(insertAt('https://x.test/?s=', '{subid}', null, null)).toEqual({ value: 'https://x.test/?s={subid}', caret: 25 });
  });
});
