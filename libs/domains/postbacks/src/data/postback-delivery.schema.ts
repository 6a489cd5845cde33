import { Schema, type InferSchemaType } from 'mongoose';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;

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
    /** The sale event's traceparent (tracing on): the delivery's span joins the trace of the change. */
    traceparent: { type: String },
    status: { type: String, enum: DELIVERY_STATUSES, required: true },
    attempts: { type: Number, default: 0 },
    last_response_status: { type: Number, default: null },
    last_error: { type: String, default: null },
    last_attempt_at: { type: Date, default: null },
    /** How long the last attempt took, connect to answer (or to the error). */
    last_duration_ms: { type: Number, default: null },
    next_attempt_at: { type: Date, default: null },
    /** While an attempt is being made: until when it holds the delivery (a dead worker's lease runs out). */
    leased_until: { type: Date, default: null },
    /** Set while the configuration's circuit breaker holds this delivery back (not counted as an attempt). */
    paused_until: { type: Date, default: null },
    /**
     * When the delivery is removed (TTL): a succeeded one POSTBACK_SUCCEEDED_RETENTION_DAYS after it
     * succeeded (its body dropped then), any other POSTBACK_FAILED_RETENTION_DAYS after its last change.
     */
    expires_at: { type: Date },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// The deliveries list's sort ({created_at: -1, _id: 1}) read in index order.
postbackDeliverySchema.index({ publisher_id: 1, created_at: -1, _id: 1 });
// The dispatchers' claims: first attempts due (pending), retries due (failed), oldest first. A claimed
// delivery's next_attempt_at moves to its lease's end, out of the due range.
postbackDeliverySchema.index({ status: 1, next_attempt_at: 1 });
postbackDeliverySchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export type PostbackDeliveryDoc = InferSchemaType<typeof postbackDeliverySchema>;
