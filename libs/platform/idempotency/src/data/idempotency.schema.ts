import { Schema, type InferSchemaType } from 'mongoose';

/** Seconds an Idempotency-Key is remembered (DESIGN: 24 h), enforced by a TTL index. */
export const IDEMPOTENCY_TTL_SECONDS = 86_400;

/**
 * One Idempotency-Key use. The _id (MongoDB's unique index) is the SHA-256 of the scope: account,
 * method, route and key, so concurrent first uses of one key collide on insert and only one runs.
 * The key itself is not stored.
 */
export const idempotencySchema = new Schema(
  {
    _id: { type: String, required: true },
    publisher_id: { type: String, required: true },
    method: { type: String, required: true },
    route: { type: String, required: true },
    /** SHA-256 of the canonical JSON of the request body. */
    fingerprint: { type: String, required: true },
    state: { type: String, enum: ['running', 'done'], required: true },
    /** A running claim older than this was abandoned (crashed process) and may be taken over. */
    locked_until: { type: Date, required: true },
    status: { type: Number },
    /** The first response body, exactly as sent. */
    body: { type: String },
    content_type: { type: String },
    created_at: { type: Date, required: true },
  },
  { versionKey: false },
);
idempotencySchema.index({ created_at: 1 }, { expireAfterSeconds: IDEMPOTENCY_TTL_SECONDS });

export type IdempotencyDoc = InferSchemaType<typeof idempotencySchema>;
