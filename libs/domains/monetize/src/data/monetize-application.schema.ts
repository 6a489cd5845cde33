import { Schema, type InferSchemaType } from 'mongoose';

export const APPLICATION_STATUSES = ['provisional', 'claimed', 'under_review', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/**
 * An instant-monetization application: a creator without an account, its provisional publisher
 * (status `provisional`, which owns the links, clicks and conversions) and the claim under way.
 * The access secret is stored as SHA-256 only; the address only as an HMAC (abuse limits).
 */
export const monetizeApplicationSchema = new Schema(
  {
    _id: { type: String, required: true }, // app_…
    secret_hash: { type: String, required: true },
    publisher_id: { type: String, required: true },
    status: { type: String, enum: APPLICATION_STATUSES, default: 'provisional', required: true },
    source: { type: String, enum: ['links', 'social_post'], required: true },
    publisher_url: { type: String },
    placement_description: { type: String },
    channel: { type: String },
    address_hash: { type: String, required: true },
    profile: {
      display_name: { type: String, default: null },
      website: { type: String, default: null },
      channels: { type: [String], default: [] },
      country: { type: String, default: null },
      claim_email: { type: String, default: null },
    },
    claim_deadline: { type: Date, required: true },
    /** The person who claimed it in the portal (its owner once approved). */
    claimed_by: { type: String },
    decided_at: { type: Date },
    decision_note: { type: String },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
monetizeApplicationSchema.index({ address_hash: 1, created_at: -1 });
monetizeApplicationSchema.index({ status: 1, created_at: -1 });

export type MonetizeApplicationDoc = InferSchemaType<typeof monetizeApplicationSchema>;
