import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errorBody } from '@cw/errors';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  headers?: Record<string, string>;
  message?: string;
}

/** Driver errors that mean the database is unreachable or over its time budget: 503, retryable. */
const UNAVAILABLE = /^Mongo(ServerSelection|Network|NetworkTimeout|NotConnected|TopologyClosed|PoolCleared|ClientClosed)Error$/;

function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: number; message?: string };
  if (UNAVAILABLE.test(e?.name ?? '')) return true;
  if (e?.name === 'MongoServerError' && e.code === 50) return true; // MaxTimeMSExpired
  return e?.name === 'MongooseError' && /buffering timed out|before initial connection/.test(e.message ?? '');
}

/** Maps anything thrown below (and unmatched routes) to the one error body. */
export function toApiError(err: unknown, ctx: Context): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (isDatabaseUnavailable(err)) {
    const overBudget = (err as { code?: number }).code === 50;
    const detail = overBudget ? 'The query ran over its time budget. Narrow it (country, merchant, q) or retry with backoff.' : 'The catalog is temporarily unavailable. Retry with backoff.';
    return new ApiError({ code: 'service_unavailable', detail, headers: { 'Retry-After': '5' } });
  }
  const e = err as HttpLikeError;
  const status = e?.status ?? e?.statusCode;
  if (e?.type === 'entity.too.large' || status === 413) return new ApiError({ code: 'payload_too_large', detail: 'The request body is too large.' });
  if (e?.type === 'entity.parse.failed' || (status === 400 && /json/i.test(e?.message ?? ''))) {
    return new ApiError({ code: 'invalid_json', detail: 'The request body is not valid JSON.' });
  }
  if (status === 415) return new ApiError({ code: 'unsupported_media_type', detail: 'Request bodies must be application/json.' });
  if (status === 404) return new ApiError({ code: 'not_found', detail: `No route for ${ctx.method} ${ctx.path}.` });
  if (status === 405) {
    return new ApiError({ code: 'method_not_allowed', detail: `Method ${ctx.method} is not allowed on ${ctx.path}.`, headers: e.headers?.Allow ? { Allow: e.headers.Allow } : {} });
  }
  if (status && status >= 400 && status < 500 && e.expose) return new ApiError({ code: 'invalid_parameter', detail: e.message ?? 'Bad request.' });
  return undefined;
}

export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new ApiError({ code: 'not_found', detail: `No route for ${ctx.method} ${ctx.path}.` });
        if (ctx.status === 405 || ctx.status === 501) {
          throw new ApiError({ code: 'method_not_allowed', detail: `Method ${ctx.method} is not allowed on ${ctx.path}.`, headers: { Allow: ctx.response.get('Allow') || 'GET' } });
        }
      }
    } catch (err) {
      let apiError = toApiError(err, ctx);
      if (!apiError) {
        logger.error({ err, request_id: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
        apiError = new ApiError({ code: 'internal_error', detail: 'An internal error occurred. It has been logged; retry later or contact support with the request id.' });
      }
      renderError(ctx, apiError);
    }
  };
}

/** Writes an error as the response: status, its headers, the one error body. */
export function renderError(ctx: Context, apiError: ApiError): void {
  ctx.status = apiError.status;
  for (const [k, v] of Object.entries(apiError.headers)) ctx.set(k, String(v));
  ctx.body = errorBody(apiError, ctx.state.requestId ?? 'unknown');
}
