/**
 * The one way the portal calls its API (`/portal/api/...`): same-origin cookies, JSON, the CSRF
 * token on every state-changing call, and the platform's error shape thrown as ApiError.
 *
 * - 401 on a call made for a signed-in page: the unauthorized handler sends the person to
 *   /signin?next=<where they were> (calls made before a session exists pass `auth: 'public'`;
 *   401 `invalid_credentials`, a wrong password, is only thrown).
 * - 403 `reauthentication_required`: the reauthenticate handler asks for the password (a dialog),
 *   then the call is made again, once.
 * - 403 `csrf_failed`: the token is read again from GET /session and the call made again, once.
 */

export const API_BASE = '/portal/api';

export interface ParamError {
  param: string;
  detail: string;
}

/** The platform's error body `{detail, code, request_id, errors?}` with the HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly request_id: string | null;
  readonly errors: ParamError[];
  /** Seconds, from Retry-After (429). */
  readonly retryAfter: number | null;

  constructor(init: { status: number; code: string; detail: string; request_id?: string | null; errors?: ParamError[]; retryAfter?: number | null }) {
    super(init.detail);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.request_id = init.request_id ?? null;
    this.errors = init.errors ?? [];
    this.retryAfter = init.retryAfter ?? null;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/** The 400 a form answers itself with before sending: each named field is required. */
export function missingFieldsError(params: string[]): ApiError {
  return new ApiError({
    status: 400,
    code: 'invalid_parameter',
    detail: 'Some fields are missing.',
    errors: params.map((param) => ({ param, detail: 'is required' })),
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method?: Method;
  body?: unknown;
  query?: Record<string, string | number | boolean | null | undefined>;
  /** 'session' (default): a 401 sends the person to sign in. 'public': a 401 is only thrown. */
  auth?: 'session' | 'public';
  /** Whether a 403 reauthentication_required opens the password dialog and retries (default true). */
  reauth?: boolean;
  signal?: AbortSignal;
  /** Extra request headers (e.g. Idempotency-Key on a creating form). */
  headers?: Record<string, string>;
}

interface Handlers {
  unauthorized(): void;
  reauthenticate(): Promise<boolean>;
}

let handlers: Handlers = { unauthorized: () => undefined, reauthenticate: async () => false };
let csrfToken: string | null = null;

export function configureApi(h: Partial<Handlers>): void {
  handlers = { ...handlers, ...h };
}

/** The session's CSRF token (GET /session gives it; sign-in and sign-out change it). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

function urlOf(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

async function errorOf(res: Response): Promise<ApiError> {
  let body: Partial<{ detail: string; code: string; request_id: string; errors: ParamError[] }> = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not the platform's JSON (a proxy's page): described by its status below.
  }
  const retry = Number(res.headers.get('Retry-After'));
  return new ApiError({
    status: res.status,
    code: typeof body.code === 'string' ? body.code : `http_${res.status}`,
    detail: typeof body.detail === 'string' && body.detail ? body.detail : `The portal answered ${res.status} ${res.statusText}`.trim() + '.',
    request_id: typeof body.request_id === 'string' ? body.request_id : res.headers.get('X-Request-Id'),
    errors: Array.isArray(body.errors) ? body.errors : [],
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
  });
}

async function send(path: string, opts: RequestOptions): Promise<Response> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { ...opts.headers, Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  try {
    return await fetch(urlOf(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'same-origin',
      cache: 'no-store',
      signal: opts.signal,
    });
  } catch (e) {
    if (opts.signal?.aborted) throw e;
    throw new ApiError({ status: 0, code: 'network_error', detail: 'The portal could not be reached. Check your connection and try again.' });
  }
}

/** Reads the CSRF token again (GET /session); null without a session. */
async function refreshCsrf(): Promise<void> {
  const res = await send('/session', {});
  if (res.ok) {
    const s = (await res.json()) as { csrf_token?: string };
    csrfToken = s.csrf_token ?? null;
  } else {
    csrfToken = null;
  }
}

export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  const auth = opts.auth ?? 'session';
  if (method !== 'GET' && auth === 'session' && csrfToken === null) await refreshCsrf();

  let res = await send(path, opts);
  let retriedCsrf = false;
  let retriedReauth = false;
  for (;;) {
    if (res.ok) break;
    const err = await errorOf(res);
    if (err.status === 403 && err.code === 'csrf_failed' && !retriedCsrf) {
      retriedCsrf = true;
      await refreshCsrf();
      res = await send(path, opts);
      continue;
    }
    if (err.status === 403 && err.code === 'reauthentication_required' && opts.reauth !== false && !retriedReauth) {
      retriedReauth = true;
      if (await handlers.reauthenticate()) {
        res = await send(path, opts);
        continue;
      }
    }
    // A wrong password (sign-in, reauth, password change) is not a lost session.
    if (err.status === 401 && auth === 'session' && err.code !== 'invalid_credentials') handlers.unauthorized();
    throw err;
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
