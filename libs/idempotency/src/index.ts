export { canonicalJson, IDEMPOTENCY_HEADER, idempotent, MAX_KEY_LENGTH } from './idempotency.middleware';
export type { IdempotencyOptions } from './idempotency.middleware';
