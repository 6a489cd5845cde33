export { canonicalJson, IDEMPOTENCY_HEADER, idempotent, MAX_KEY_LENGTH, runIdempotent } from './idempotency.middleware';
export type { IdempotencyOptions, IdempotencyScope, StoredResponse } from './idempotency.middleware';
