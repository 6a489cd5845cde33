import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linkCode } from './tracked-links';

const key = randomBytes(32);
const spec = { publisherId: 'pub_trailhead', programId: 1001, landingUrl: 'https://shop.example/p/1', subid: '' };
/** The same text as a new string object (what a request hands over after a fresh read). */
const copy = (s: string) => [...s].join('');

describe('link codes', () => {
  it('are the same for the same identity, whatever string objects carry it, and 14 base62 characters', () => {
    const code = linkCode(key, spec);
    expect(code).toMatch(/^[0-9A-Za-z]{14}$/);
    expect(linkCode(key, { publisherId: copy(spec.publisherId), programId: 1001, landingUrl: copy(spec.landingUrl), subid: copy('') })).toBe(code);
  });

  it('differ when any part of the identity or the key differs', () => {
    const code = linkCode(key, spec);
    const others = [
      linkCode(key, { ...spec, publisherId: 'pub_dealradar' }),
      linkCode(key, { ...spec, programId: 1002 }),
      linkCode(key, { ...spec, landingUrl: 'https://shop.example/p/2' }),
      linkCode(key, { ...spec, subid: 'nl-42' }),
      linkCode(randomBytes(32), spec),
    ];
    expect(new Set([code, ...others]).size).toBe(6);
  });

  it('stay the same after the memo of 100,000 codes is emptied', () => {
    const before = linkCode(key, spec);
    for (let i = 0; i < 100_001; i++) linkCode(key, { ...spec, landingUrl: `https://shop.example/p/${i}` });
    expect(linkCode(key, spec)).toBe(before);
  });
});
