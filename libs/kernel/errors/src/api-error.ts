import { statusOf, type ErrorCode } from './error-codes';

export interface ParamError {
  param: string;
  detail: string;
}

export interface ApiErrorInit {
  code: ErrorCode;
  detail: string;
  /** Per-parameter problems (400 validation errors). */
  errors?: ParamError[];
  /** Extra response headers (e.g. Retry-After, Allow). */
  headers?: Record<string, string>;
}

/** An error a client may see. The status comes from the code table. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: ParamError[];
  readonly headers: Record<string, string>;

  constructor(init: ApiErrorInit) {
    super(init.detail);
    this.name = 'ApiError';
    this.code = init.code;
    this.status = statusOf(init.code);
    this.errors = init.errors;
    this.headers = init.headers ?? {};
  }

  get detail(): string {
    return this.message;
  }
}

export interface ErrorBody {
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: ParamError[];
}

export function errorBody(err: ApiError, requestId: string): ErrorBody {
  const body: ErrorBody = { detail: err.detail, code: err.code, request_id: requestId };
  if (err.errors?.length) body.errors = err.errors;
  return body;
}

/** Shorthands for the errors every service raises. */
export const errors = {
  notFound: (detail = 'The requested resource does not exist.') => new ApiError({ code: 'not_found', detail }),
  notAuthenticated: () => new ApiError({ code: 'not_authenticated', detail: 'Authentication credentials were missing or are not valid.' }),
  invalidParameter: (param: string, detail: string) =>
    new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}`, errors: [{ param, detail }] }),
  serviceUnavailable: (detail = 'A dependency is temporarily unavailable. Retry with backoff.') => new ApiError({ code: 'service_unavailable', detail }),
  credentialNotAllowed: (detail = 'This credential is not allowed to use this endpoint.') => new ApiError({ code: 'credential_not_allowed', detail }),
};
