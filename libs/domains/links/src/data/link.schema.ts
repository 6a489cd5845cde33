import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A tracked link: {tracking_url}/c/{_id}. One per (publisher, program, landing URL, sub-ID),
 * reused, never shared between publishers: the _id is an HMAC of those four, so one identity is one
 * document through the _id index alone (sharded by hashed _id: docs/scaling.md). Its _id is also
 * the deeplink id clicks are filtered by.
 */
export const linkSchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    program_id: { type: Number, required: true },
    campaign_id: { type: Number, required: true },
    landing_url: { type: String, required: true },
    subid: { type: String, default: '' },
    /**
     * Smart link routes (../link-routes.ts): ordered rules, the first matching the visitor's
     * country and device answers; absent: the landing URL for everyone. Not part of the identity.
     */
    routes: {
      type: [
        new Schema(
          { countries: { type: [String], default: undefined }, devices: { type: [String], default: undefined }, landing_url: { type: String, required: true } },
          { _id: false },
        ),
      ],
      default: undefined,
    },
    source: { type: String, enum: ['api', 'product', 'monetize'], default: 'api' },
    /** Listed by GET /links/: created (or re-requested) through the links API. */
    listed: { type: Boolean, default: false },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
// The links list's sort ({created_at: -1, _id: 1}) read in index order.
linkSchema.index({ publisher_id: 1, listed: 1, created_at: -1, _id: 1 });

export type LinkDoc = InferSchemaType<typeof linkSchema>;
