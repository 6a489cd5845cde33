import { Schema, type InferSchemaType } from 'mongoose';
import { PUBLISHER_CHANNELS } from '@cw/auth';

/** A plan is for one of the channels publishers promote in. */
export const TRENDING_CHANNELS = PUBLISHER_CHANNELS;

const trendingItemSchema = new Schema(
  {
    _id: { type: String, required: true }, // trd_…
    program_id: { type: Number, required: true },
    title: { type: String, required: true },
    score: { type: Number, required: true },
    landing_url: { type: String },
  },
  { versionKey: false },
);

/**
 * A trending-opportunities plan: what to promote now in one audience country and channel. Only
 * released plans are shown to subscribed publishers.
 */
export const trendingPlanSchema = new Schema(
  {
    _id: { type: String, required: true }, // tpl_…
    title: { type: String, required: true },
    country: { type: String, required: true },
    channel: { type: String, enum: TRENDING_CHANNELS, required: true },
    items: { type: [trendingItemSchema], default: [] },
    released_at: { type: Date, default: null },
    created_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
trendingPlanSchema.index({ released_at: 1, country: 1, channel: 1 });

export type TrendingPlanDoc = InferSchemaType<typeof trendingPlanSchema>;
