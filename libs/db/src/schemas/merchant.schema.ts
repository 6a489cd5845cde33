import { Schema, type InferSchemaType } from 'mongoose';

/** A merchant (advertiser); its id is the merchant/campaign id of the spec's merchant filter. */
export const merchantSchema = new Schema(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    domains: { type: [String], default: [] },
  },
  { versionKey: false, timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } },
);

export type MerchantDoc = InferSchemaType<typeof merchantSchema>;
