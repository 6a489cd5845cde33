import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import {
  affiliateAttribution,
  ATTRIBUTION_TOKEN_CLOCK_SKEW_MS,
  ATTRIBUTION_TOKEN_LATE_REPORT_MS,
  ATTRIBUTION_TOKEN_PATTERN,
  ATTRIBUTION_TOKEN_TTL_MS,
  issuedAtOf,
  readAttributionToken,
  signAttributionToken,
  tokenTimeProblem,
} from './attribution-tokens';

const claims = { merchantId: 501, programId: 1001, publisherId: 'pub_trailhead', productId: 'p_0123456789abcdef0123', subid: 'agent-chat' };

describe('attribution tokens', () => {
  it('say who they credit, for which merchant, program and product, until when', () => {
    const keys = keyRing(randomBytes(32));
    const now = Date.UTC(2026, 0, 10, 12);
    const token = signAttributionToken(keys, claims, now);
    expect(token).toMatch(new RegExp(ATTRIBUTION_TOKEN_PATTERN));
    const read = readAttributionToken(keys, token)!;
    expect(read).toMatchObject(claims);
    expect(read.expiresAt.getTime()).toBe(Math.floor((now + ATTRIBUTION_TOKEN_TTL_MS) / 1000) * 1000);
    expect(read.nonce).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('are compact: well under 200 characters for a product of a demo publisher', () => {
    expect(signAttributionToken(keyRing(randomBytes(32)), claims).length).toBeLessThan(200);
  });

  it('each carry a nonce of their own (two tokens for one product are two spends)', () => {
    const keys = keyRing(randomBytes(32));
    const a = readAttributionToken(keys, signAttributionToken(keys, claims))!;
    const b = readAttributionToken(keys, signAttributionToken(keys, claims))!;
    expect(a.nonce).not.toBe(b.nonce);
  });

  it('are refused when any byte is changed, when cut, when extended or re-encoded', () => {
    const keys = keyRing(randomBytes(32));
    const token = signAttributionToken(keys, claims);
    const raw = Buffer.from(token.slice(4), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const bad = Buffer.from(raw);
      bad[i] = bad[i]! ^ 0x01;
      expect(readAttributionToken(keys, `atp_${bad.toString('base64url')}`), `byte ${i}`).toBeUndefined();
    }
    expect(readAttributionToken(keys, token.slice(0, -2))).toBeUndefined();
    expect(readAttributionToken(keys, `${token}AA`)).toBeUndefined();
    expect(readAttributionToken(keys, `atp_${raw.toString('base64')}`)).toBeUndefined();
    expect(readAttributionToken(keys, token.replace('atp_', 'clk_'))).toBeUndefined();
    expect(readAttributionToken(keys, 'atp_')).toBeUndefined();
  });

  it("are refused under another network's keys, and still read after a key rotation", () => {
    const old = randomBytes(32);
    const token = signAttributionToken(keyRing(old), claims);
    expect(readAttributionToken(keyRing(randomBytes(32)), token)).toBeUndefined();
    expect(readAttributionToken(keyRing(old, [{ id: 'k2', key: randomBytes(32) }]), token)).toMatchObject(claims);
  });

  it('carry an expiry the reader sees, so an old token can be refused', () => {
    const keys = keyRing(randomBytes(32));
    const token = signAttributionToken(keys, { ...claims, expiresAt: new Date(Date.UTC(2020, 0, 1)) });
    expect(readAttributionToken(keys, token)!.expiresAt.toISOString()).toBe('2020-01-01T00:00:00.000Z');
  });

  it('credit only sales between their issue (less the clock skew) and expiry, presented at most 30 days after the expiry', () => {
    const expiresAt = new Date(Date.UTC(2026, 0, 8));
    const issued = issuedAtOf({ expiresAt }).getTime();
    expect(issued).toBe(Date.UTC(2026, 0, 1));
    const at = (ms: number) => new Date(ms);
    const presented = at(Date.UTC(2026, 0, 9));
    expect(tokenTimeProblem({ expiresAt }, at(issued + 1000), presented)).toBeUndefined();
    expect(tokenTimeProblem({ expiresAt }, at(issued - ATTRIBUTION_TOKEN_CLOCK_SKEW_MS), presented)).toBeUndefined();
    expect(tokenTimeProblem({ expiresAt }, at(issued - ATTRIBUTION_TOKEN_CLOCK_SKEW_MS - 1), presented)).toBe('before_issue');
    expect(tokenTimeProblem({ expiresAt }, at(expiresAt.getTime() + 1), presented)).toBe('expired');
    const lastDay = at(expiresAt.getTime() + ATTRIBUTION_TOKEN_LATE_REPORT_MS);
    expect(tokenTimeProblem({ expiresAt }, at(issued + 1000), lastDay)).toBeUndefined();
    expect(tokenTimeProblem({ expiresAt }, at(issued + 1000), at(lastDay.getTime() + 1))).toBe('late');
  });

  it('come as the ACP affiliate_attribution object, provider the portal host', () => {
    const keys = keyRing(randomBytes(32));
    const now = Date.UTC(2026, 0, 10, 12, 0, 0, 345);
    const a = affiliateAttribution(keys, 'https://portal.example.net', claims, now);
    expect(a).toMatchObject({ provider: 'portal.example.net', publisher_id: 'pub_trailhead', campaign_id: 501 });
    expect(a.expires_at).toBe(new Date(Math.floor((now + ATTRIBUTION_TOKEN_TTL_MS) / 1000) * 1000).toISOString());
    expect(readAttributionToken(keys, a.token)!.expiresAt.toISOString()).toBe(a.expires_at);
  });

  it('refuse fields they cannot carry', () => {
    expect(() => signAttributionToken(keyRing(randomBytes(32)), { ...claims, subid: 'x'.repeat(101) })).toThrow();
  });
});
