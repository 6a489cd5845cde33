import { Schema, type InferSchemaType } from 'mongoose';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;
/** Deliveries are kept 30 days (TTL index on created_at). */
export const DELIVERY_TTL_SECONDS = 30 * 86_400;

/**
 * One delivery: an event (or a test event) to one postback configuration. Its id is stable
 * across retries (X-CW-Delivery), derived from (event, configuration), so an event can never
 * become two deliveries. The body is frozen when the delivery is created: retries send the same.
 */
export const postbackDeliverySchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    event_id: { type: String, required: true },
    event: { type: String, required: true },
    conversion_id: { type: String },
    test: { type: Boolean, default: false },
    body: { type: String, required: true },
    status: { type: String, enum: DELIVERY_STATUSES, required: true },
    attempts: { type: Number, default: 0 },
    last_response_status: { type: Number, default: null },
    last_error: { type: String, default: null },
    last_attempt_at: { type: Date, default: null },
    next_attempt_at: { type: Date, default: null },
    /** While an attempt is being made: until when it holds the delivery (a dead worker's lease runs out). */
    leased_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
postbackDeliverySchema.index({ publisher_id: 1, created_at: -1 });
// The dispatch pass's scan: first attempts due, and retries whose job was lost.
postbackDeliverySchema.index({ status: 1, next_attempt_at: 1 });
postbackDeliverySchema.index({ created_at: 1 }, { expireAfterSeconds: DELIVERY_TTL_SECONDS });

export type PostbackDeliveryDoc = InferSchemaType<typeof postbackDeliverySchema>;
