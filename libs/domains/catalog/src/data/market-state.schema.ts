import { Schema, type InferSchemaType } from 'mongoose';

/** Per market: when its prepared feed files were written and when its catalog last changed. */
export const marketStateSchema = new Schema(
  {
    _id: { type: String, required: true }, // ISO alpha-2 country
    generated_at: { type: Date },
    catalog_changed_at: { type: Date },
  },
  { versionKey: false },
);

export type MarketStateDoc = InferSchemaType<typeof marketStateSchema>;
