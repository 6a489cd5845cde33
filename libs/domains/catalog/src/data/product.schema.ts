import { Schema, type InferSchemaType } from 'mongoose';

export const AVAILABILITIES = ['in_stock', 'out_of_stock', 'preorder', 'backorder'] as const;

/**
 * A catalog offer: one GTIN from one program in one market. Its _id is derived from
 * (gtin, program, country), so it survives price and stock refreshes.
 */
export const productSchema = new Schema(
  {
    _id: { type: String, required: true },
    gtin: { type: String, required: true },
    /** The GTIN left-padded to 14 digits: GTIN-8/12/13/14 forms of one number match. */
    gtin14: { type: String, required: true },
    title: { type: String, required: true },
    /** Lower-cased title for case-insensitive phrase search. */
    title_lc: { type: String, required: true },
    description: { type: String, default: '' },
    brand: { type: String, default: '' },
    brand_lc: { type: String, default: '' },
    category: { type: String, default: '' },
    category_lc: { type: String, default: '' },
    price: { type: Schema.Types.Decimal128, required: true },
    sale_price: { type: Schema.Types.Decimal128 },
    currency: { type: String, required: true },
    image: { type: String, default: '' },
    /** The merchant's own product URL: never part of a product response. */
    source_url: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    program_id: { type: Number, required: true },
    country: { type: String, required: true },
    availability: { type: String, enum: AVAILABILITIES, required: true },
    group_id: { type: String },
    size: { type: String },
    mpn: { type: String },
    condition: { type: String, default: 'new' },
    last_seen_at: { type: Date, required: true },
    /** The source's freshness deadline: past it the row is not served. */
    fresh_until: { type: Date, required: true },
    removed: { type: Boolean, default: false },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
productSchema.index({ country: 1, program_id: 1, _id: 1 });
productSchema.index({ gtin14: 1 });
productSchema.index({ program_id: 1, _id: 1 });
productSchema.index({ group_id: 1 });
productSchema.index({ brand_lc: 1 });

export type ProductDoc = InferSchemaType<typeof productSchema>;
