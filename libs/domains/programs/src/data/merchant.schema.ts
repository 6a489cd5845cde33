import { Schema, type InferSchemaType } from 'mongoose';

/** A merchant (advertiser); its id is the merchant/campaign id of the spec's merchant filter. */
export const merchantSchema = new Schema(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    domains: { type: [String], default: [] },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);

export type MerchantDoc = InferSchemaType<typeof merchantSchema>;
