import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { clickMac, ClickIds, readClickId } from './click-ids';

/** The signature as every version signed it: HMAC-SHA256 under the derived key, 10 bytes. */
const expected = (secret: Buffer, body: Buffer) =>
  createHmac('sha256', createHmac('sha256', secret).update('click-id/v1').digest()).update(body).digest().subarray(0, 10);

describe('click id signatures', () => {
  it('are the bytes createHmac gives, for every body length a click id has and beyond', () => {
    for (let round = 0; round < 5; round++) {
      const secret = randomBytes(round === 0 ? 32 : 16 + round * 20);
      for (let n = 0; n <= 90; n++) {
        const body = randomBytes(n);
        expect(clickMac(secret, body).equals(expected(secret, body)), `key ${secret.length} bytes, body ${n} bytes`).toBe(true);
      }
    }
  });

  it("end every id with createHmac's bytes of everything before them, for every link code length", () => {
    const secret = randomBytes(32);
    const ids = new ClickIds(keyRing(secret));
    for (let n = 1; n <= 64; n++) {
      const raw = Buffer.from(ids.next('a1B2c3'.repeat(11).slice(0, n), { isBot: n % 2 === 0 }).slice(4), 'base64url');
      expect(raw.subarray(raw.length - 10).equals(expected(secret, raw.subarray(0, raw.length - 10))), `link code of ${n}`).toBe(true);
    }
  });

  it('verify ids signed under any key of the ring, and no id altered in any byte', () => {
    const old = randomBytes(32);
    const current = randomBytes(32);
    const signedBefore = new ClickIds(keyRing(old)).next('lnkOld', { isBot: true }, Date.UTC(2026, 0, 1));
    // A rotation: the new key signs, the old one still verifies.
    const ring = keyRing(old, [{ id: 'k2', key: current }]);
    const id = new ClickIds(ring).next('AbCdEf12', { isBot: false });
    expect(readClickId(ring, id)).toMatchObject({ linkId: 'AbCdEf12', isBot: false, preview: false });
    expect(readClickId(ring, signedBefore)).toMatchObject({ linkId: 'lnkOld', isBot: true, at: new Date(Date.UTC(2026, 0, 1)) });
    const raw = Buffer.from(id.slice(4), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i]! ^= 1;
      expect(readClickId(ring, `clk_${altered.toString('base64url')}`), `byte ${i}`).toBeUndefined();
    }
  });
});
