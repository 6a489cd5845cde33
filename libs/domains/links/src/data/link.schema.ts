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
    /**
     * The link's target state as the health pass last found it (../link-health.ts): `since` when
     * that state began (kept while it lasts), `clicks_lost` the human clicks counted since then
     * while not ok (absent when none). Absent: never found other than ok (shown `ok` since created_at).
     */
    /** The health pass also checks the landing URL answers (HEAD, then GET): `unreachable` otherwise. Absent: not checked. */
    check_landing: { type: Boolean, default: undefined },
    health: {
      type: new Schema(
        {
          state: { type: String, enum: ['ok', 'out_of_stock', 'program_paused', 'program_ended', 'not_approved', 'unreachable'], required: true },
          since: { type: Date, required: true },
          clicks_lost: { type: Number },
        },
        { _id: false },
      ),
      default: undefined,
    },
    /**
     * The catalog product a product link (source 'product') was made for: its id, GTIN and market.
     * Links made before carry none until the next product page that ensures them sets it
     * (docs/decisions/0063-gtin-fallback.md). Read by the health pass and the GTIN fallback.
     */
    product: {
      type: new Schema(
        { id: { type: String, required: true }, gtin: { type: String, required: true }, market: { type: String, required: true } },
        { _id: false },
      ),
      default: undefined,
    },
    /** false: a dead product link never falls back to another program (absent: the account's setting). */
    fallback: { type: Boolean, default: undefined },
    /** Listed by GET /links/: created (or re-requested) through the links API. */
    listed: { type: Boolean, default: false },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
// The links list's sort ({created_at: -1, _id: 1}) read in index order.
linkSchema.index({ publisher_id: 1, listed: 1, created_at: -1, _id: 1 });
// An account's links in a health state, in _id order (the health pass's clicks lost, the count of links not ok, GET /links/?health=).
linkSchema.index({ publisher_id: 1, 'health.state': 1, _id: 1 });
// An account's links that lost clicks while not ok, most first (the dashboard); only those are in it.
linkSchema.index({ publisher_id: 1, 'health.clicks_lost': -1 }, { partialFilterExpression: { 'health.clicks_lost': { $exists: true } } });

export type LinkDoc = InferSchemaType<typeof linkSchema>;
