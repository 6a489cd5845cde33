/**
 * Postback signing secrets, sealed with the key ring as every readable-again secret is: `seal`,
 * `open` and `sealedWithOlderKey` live beside the ring in @cw/config (payout methods use them
 * too) and are re-exported here for the postbacks code that always imported them from this file.
 */
import { randomBytes } from 'node:crypto';

export { open, seal, sealedWithOlderKey } from '@cw/config';
export type { SealedSecret } from '@cw/config';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
