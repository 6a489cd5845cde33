import { Schema, type InferSchemaType } from 'mongoose';

export const OFFER_TYPES = ['voucher', 'deal'] as const;

/** A voucher (with a code) or a deal of one program in one country, running from starts_at until ends_at or ended_at. */
export const offerSchema = new Schema(
  {
    _id: { type: String, required: true },
    program_id: { type: Number, required: true },
    type: { type: String, enum: OFFER_TYPES, required: true },
    title: { type: String, required: true },
    description: { type: String, default: '' },
    code: { type: String, default: null },
    landing_url: { type: String, required: true },
    country: { type: String, required: true },
    starts_at: { type: Date, required: true },
    ends_at: { type: Date, required: true },
    /** Set when an operator ends the offer early. */
    ended_at: { type: Date, default: null },
    terms: { type: String, default: '' },
    created_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
offerSchema.index({ country: 1, program_id: 1, ends_at: 1 });

export type OfferDoc = InferSchemaType<typeof offerSchema>;
