import { Schema, type InferSchemaType } from 'mongoose';

/**
 * An agent attribution token spent (write-once, as the ACP proposal asks): keyed by the token's
 * nonce, so a token credits one order only, whatever instance takes the order. Inserted before the
 * conversion is created, with the conversion's id (the hash of merchant and order id): the same
 * order again finds its own spend and goes on (a retry after a crash), another order is refused.
 * The token itself is never stored. Sharded by hashed `_id` (docs/scaling.md).
 */
export const attributionSpendSchema = new Schema(
  {
    _id: { type: String, required: true },
    conversion_id: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    /** Kept until the token could no longer be spent anyway (then the TTL monitor removes it). */
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// A spend outlives its token by 30 days (a token past expiry is refused before its spend is read).
attributionSpendSchema.index({ expires_at: 1 }, { expireAfterSeconds: 30 * 86_400 });

export type AttributionSpendDoc = InferSchemaType<typeof attributionSpendSchema>;
