/**
 * Infrastructure failures of the database, as the platform's error codes: unreachable (or
 * closed) is `service_unavailable`; a query over its time budget (maxTimeMS) is
 * `service_unavailable` with advice to narrow it. Anything else is not the database's to classify.
 */
import { ApiError } from '@cw/errors';

const UNAVAILABLE = /^Mongo(ServerSelection|Network|NetworkTimeout|NotConnected|TopologyClosed|PoolCleared|ClientClosed)Error$/;

export function databaseError(err: unknown): ApiError | undefined {
  const e = err as { name?: string; code?: number; message?: string };
  if (e?.name === 'MongoServerError' && e.code === 50) {
    return new ApiError({
      code: 'service_unavailable',
      detail: 'The query ran over its time budget. Narrow it (country, merchant, q) or retry with backoff.',
      headers: { 'Retry-After': '5' },
    });
  }
  if (UNAVAILABLE.test(e?.name ?? '') || (e?.name === 'MongooseError' && /buffering timed out|before initial connection/.test(e.message ?? ''))) {
    return new ApiError({
      code: 'service_unavailable',
      detail: 'The catalog is temporarily unavailable. Retry with backoff.',
      headers: { 'Retry-After': '5' },
    });
  }
  return undefined;
}
