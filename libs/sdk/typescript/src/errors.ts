/** One error class for every failed call: the API's `{detail, code, request_id}`, or a network failure. */

export interface ParamProblem {
  param: string;
  detail: string;
}

export interface CwApiErrorInit {
  status: number;
  code: string;
  detail: string;
  request_id?: string;
  errors?: ParamProblem[];
  retryAfterSeconds?: number;
  method?: string;
  url?: string;
  cause?: unknown;
}

/**
 * A call that did not succeed. `status` is the HTTP status, or 0 when no answer came
 * (`code` is then `network_error` or `timeout`). `code`, `detail` and `request_id` are the
 * API's error body; quote `request_id` when asking for support.
 */
export class CwApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly request_id: string | undefined;
  /** Per-parameter problems of a 400. */
  readonly errors: ParamProblem[];
  /** Retry-After of the answer, in seconds, when it had one. */
  readonly retryAfterSeconds: number | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;

  constructor(init: CwApiErrorInit) {
    super(`${init.status ? `${init.status} ` : ''}${init.code}: ${init.detail}${init.request_id ? ` (request ${init.request_id})` : ''}`, {
      cause: init.cause,
    });
    this.name = 'CwApiError';
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.request_id = init.request_id;
    this.errors = init.errors ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.method = init.method;
    this.url = init.url;
  }

  /** The same as `request_id`. */
  get requestId(): string | undefined {
    return this.request_id;
  }
}

/** Builds the error of an answer that is not 2xx from its body (any body: a proxy's HTML too). */
export function errorFromResponse(
  status: number,
  text: string,
  headers: Headers,
  extra: { method?: string; url?: string; retryAfterSeconds?: number },
): CwApiError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: described by its status below
  }
  // OAuth endpoints answer {error, error_description}.
  const code = typeof body.code === 'string' ? body.code : typeof body.error === 'string' ? body.error : `http_${status}`;
  const detail =
    typeof body.detail === 'string'
      ? body.detail
      : typeof body.error_description === 'string'
        ? body.error_description
        : text.slice(0, 200) || `HTTP ${status}`;
  return new CwApiError({
    status,
    code,
    detail,
    request_id: typeof body.request_id === 'string' ? body.request_id : (headers.get('x-request-id') ?? undefined),
    errors: Array.isArray(body.errors) ? (body.errors as ParamProblem[]) : undefined,
    ...extra,
  });
}
