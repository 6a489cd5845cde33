import { Schema, type InferSchemaType } from 'mongoose';

const sealed = { kid: { type: String }, iv: { type: String }, tag: { type: String }, data: { type: String } };

/**
 * A publisher's conversion postback: target URL (with macros), method, event types, and the
 * signing secret sealed with AES-GCM (never stored or logged in clear). During a rotation the
 * previous secret stays valid (deliveries are signed with both) until `previous_valid_until`.
 */
export const postbackConfigSchema = new Schema(
  {
    _id: { type: String, required: true }, // the publisher account id: one configuration per account
    url: { type: String, required: true },
    http_method: { type: String, enum: ['GET', 'POST'], required: true },
    event_types: { type: [String], required: true },
    active: { type: Boolean, required: true },
    secret: { type: sealed, required: true },
    secret_prefix: { type: String, required: true },
    previous_secret: { type: sealed },
    previous_valid_until: { type: Date },
    /** Failed attempts in a row (a success resets it): the circuit breaker's count. */
    consecutive_failures: { type: Number, default: 0 },
    /** While set and in the future the breaker is open: deliveries wait (not counted as attempts). */
    paused_until: { type: Date, default: null },
    /** After a pause, one probe attempt is in flight until then; the others wait for its outcome. */
    probe_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);

export type PostbackConfigDoc = InferSchemaType<typeof postbackConfigSchema>;
