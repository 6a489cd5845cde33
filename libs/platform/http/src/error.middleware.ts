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

/** Turns an infrastructure failure (database, cache) into an error code, or says it is not one. */
export type ErrorClassifier = (err: unknown) => ApiError | undefined;

/** Writes an error as the response in the service's envelope. */
export type ErrorRenderer = (ctx: Context, apiError: ApiError) => void;

/**
 * Maps anything thrown below (and unmatched routes) to an ApiError: ApiErrors as they are,
 * infrastructure failures through the classifiers, HTTP errors of Koa and its body parser by
 * status. Undefined for anything else (a 500).
 */
export function toApiError(err: unknown, ctx: Context, classifiers: readonly ErrorClassifier[] = []): ApiError | undefined {
  if (err instanceof ApiError) return err;
  for (const classify of classifiers) {
    const classified = classify(err);
    if (classified) return classified;
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
    return new ApiError({
      code: 'method_not_allowed',
      detail: `Method ${ctx.method} is not allowed on ${ctx.path}.`,
      headers: e.headers?.Allow ? { Allow: e.headers.Allow } : {},
    });
  }
  if (status && status >= 400 && status < 500 && e.expose) return new ApiError({ code: 'invalid_parameter', detail: e.message ?? 'Bad request.' });
  return undefined;
}

export function errorHandler(logger: Logger, opts: { classifiers?: readonly ErrorClassifier[]; render?: ErrorRenderer } = {}) {
  const render = opts.render ?? renderError;
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new ApiError({ code: 'not_found', detail: `No route for ${ctx.method} ${ctx.path}.` });
        if (ctx.status === 405 || ctx.status === 501) {
          throw new ApiError({
            code: 'method_not_allowed',
            detail: `Method ${ctx.method} is not allowed on ${ctx.path}.`,
            headers: { Allow: ctx.response.get('Allow') || 'GET' },
          });
        }
      }
    } catch (err) {
      let apiError = toApiError(err, ctx, opts.classifiers);
      if (!apiError) {
        // The request's logger (request id, account, trace id) when the stack gave it one.
        const log = (ctx.state.log as Logger | undefined) ?? logger.child({ request_id: ctx.state.requestId });
        log.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error');
        apiError = new ApiError({
          code: 'internal_error',
          detail: 'An internal error occurred. It has been logged; retry later or contact support with the request id.',
        });
      }
      render(ctx, apiError);
    }
  };
}

/** The default renderer: status, its headers, the one error body. */
export function renderError(ctx: Context, apiError: ApiError): void {
  ctx.status = apiError.status;
  for (const [k, v] of Object.entries(apiError.headers)) ctx.set(k, String(v));
  ctx.body = errorBody(apiError, ctx.state.requestId ?? 'unknown');
}
