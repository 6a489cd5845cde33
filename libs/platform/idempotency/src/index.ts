export { canonicalJson, IDEMPOTENCY_HEADER, idempotent, MAX_KEY_LENGTH, runIdempotent } from './idempotency.middleware';
export type { IdempotencyOptions, IdempotencyScope, StoredResponse } from './idempotency.middleware';
export { IdempotencyData, idempotencyDomain } from './data/idempotency.data';
export { IDEMPOTENCY_TTL_SECONDS } from './data/idempotency.schema';
export type { IdempotencyDoc } from './data/idempotency.schema';
