/**
 * The one place a request is made: credentials per surface, Idempotency-Key on writes, retries
 * (safe or idempotent requests only) with backoff and jitter honouring Retry-After, one error class.
 */
import { CwApiError, errorFromResponse } from './errors.js';
import { backoffDelay, DEFAULT_RETRY, IDEMPOTENT_METHODS, parseRetryAfter, retryAfterDelay, sleep, type RetryOptions } from './retry.js';

/** Supplies OAuth access tokens (see `oauthTokenProvider`); `invalidate` is called after a 401 so the next call refreshes. */
export interface TokenProvider {
  getToken(): Promise<string>;
  invalidate?(token: string): void;
}

/** Which credential a surface takes. */
export type Auth = 'publisher' | 'reporting' | 'offers' | 'none';

export interface RetryEvent {
  attempt: number;
  delayMs: number;
  method: string;
  url: string;
  /** The answer's status, or 0 when no answer came. */
  status: number;
  code: string;
  retryAfterMs?: number;
}

export interface ClientOptions {
  /** The platform's URL, e.g. `https://api.example.com` (default: `CW_BASE_URL`). A trailing `/api/v1/publisher` is accepted. */
  baseUrl?: string;
  /** Publisher API key (default: `CW_API_KEY`), sent as `X-API-Key`. */
  apiKey?: string;
  /** OAuth access token, or a provider of fresh ones: the publisher API as an app the account allowed. */
  accessToken?: string | TokenProvider;
  /** Reporting token (`rpt_…`) for the reporting-token API. */
  reportingToken?: string;
  /** Offers credential (`ofr_…`) for the offers pilot. */
  offersCredential?: string;
  retry?: RetryOptions;
  /** Budget of one attempt, headers and body (default 30 s). */
  timeoutMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** Another fetch (tests, proxies, older runtimes). */
  fetch?: typeof fetch;
  /** Makes Idempotency-Keys (default: a random UUID). */
  idempotencyKey?: () => string;
  /** Sent as User-Agent where the runtime allows it. */
  userAgent?: string;
}

export interface RequestOptions {
  /** Idempotency-Key for this write: a string to choose it (retrying your own call), false to send none. */
  idempotencyKey?: string | false;
  signal?: AbortSignal;
  /** Overrides the client's retry settings for this call. */
  retry?: RetryOptions;
  headers?: Record<string, string>;
}

export interface CallSpec {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  auth: Auth;
  /** The endpoint replays answers under an Idempotency-Key: one is sent (unless turned off) and retries are safe. */
  idempotent?: boolean;
  /** How to read a 2xx body (default json). */
  as?: 'json' | 'text' | 'response';
  accept?: string;
}

export const VERSION = '0.1.0';

/** Environment variables where the runtime has them (Node, Bun, Deno with --allow-env through process). */
export function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = proc?.env?.[name];
  return value === '' ? undefined : value;
}

export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/api\/v1\/publisher$/, '');
}

/** A query string of defined values (arrays as repeated names), in the order given. */
export function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) v.forEach((x) => params.append(k, String(x)));
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

const randomKey = () => globalThis.crypto.randomUUID();

export class Transport {
  readonly baseUrl: string;
  private readonly opts: ClientOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: ClientOptions = {}) {
    const baseUrl = opts.baseUrl ?? env('CW_BASE_URL');
    if (!baseUrl) throw new TypeError('No base URL: pass baseUrl or set CW_BASE_URL (e.g. http://127.0.0.1:8080 for the local platform).');
    this.baseUrl = normalizeBaseUrl(baseUrl);
    this.opts = { ...opts, apiKey: opts.apiKey ?? (opts.accessToken ? undefined : env('CW_API_KEY')) };
    this.fetchImpl = opts.fetch ?? ((...args) => globalThis.fetch(...args));
  }

  url(path: string, query?: Record<string, unknown>): string {
    return `${this.baseUrl}${path}${queryString(query)}`;
  }

  /** The credential headers of a surface; throws when the client has none for it. */
  async authHeaders(auth: Auth): Promise<{ headers: Record<string, string>; token?: string }> {
    const missing = (what: string, option: string) =>
      new CwApiError({ status: 0, code: 'missing_credential', detail: `This call needs ${what}: pass ${option} to the client.` });
    switch (auth) {
      case 'none':
        return { headers: {} };
      case 'reporting':
        if (!this.opts.reportingToken) throw missing('a reporting token', 'reportingToken');
        return { headers: { Authorization: `Bearer ${this.opts.reportingToken}` } };
      case 'offers':
        if (!this.opts.offersCredential) throw missing('an offers credential', 'offersCredential');
        return { headers: { Authorization: `Bearer ${this.opts.offersCredential}` } };
      case 'publisher': {
        if (this.opts.apiKey) return { headers: { 'X-API-Key': this.opts.apiKey } };
        const at = this.opts.accessToken;
        if (typeof at === 'string') return { headers: { Authorization: `Bearer ${at}` } };
        if (at) {
          const token = await at.getToken();
          return { headers: { Authorization: `Bearer ${token}` }, token };
        }
        throw missing('an API key or an OAuth access token', 'apiKey (or set CW_API_KEY) or accessToken');
      }
    }
  }

  /** Sends one call, retrying what may be retried; resolves with the decoded 2xx body. */
  async call<T>(spec: CallSpec, options: RequestOptions = {}): Promise<T> {
    const res = await this.send(spec, options);
    const as = spec.as ?? 'json';
    if (as === 'response') return res as unknown as T;
    const text = await res.text();
    if (as === 'text') return text as unknown as T;
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The 2xx Response of a call (its body unread), after retries; any other answer is thrown as a CwApiError. */
  async send(spec: CallSpec, options: RequestOptions = {}): Promise<Response> {
    const retry = { ...DEFAULT_RETRY, ...this.opts.retry, ...options.retry };
    const method = spec.method.toUpperCase();
    const url = this.url(spec.path, spec.query);
    const idempotencyKey =
      spec.idempotent && options.idempotencyKey !== false ? (options.idempotencyKey ?? (this.opts.idempotencyKey ?? randomKey)()) : undefined;
    const retryable = IDEMPOTENT_METHODS.has(method) || idempotencyKey !== undefined;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    let refreshedToken = false;

    for (let attempt = 0; ; attempt++) {
      const { headers: authHeaders, token } = await this.authHeaders(spec.auth);
      const headers: Record<string, string> = {
        Accept: spec.accept ?? 'application/json',
        ...authHeaders,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
        ...(this.opts.userAgent ? { 'User-Agent': this.opts.userAgent } : {}),
        ...options.headers,
      };
      const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let failure: CwApiError;
      let retryAfterMs: number | undefined;
      try {
        const res = await this.fetchImpl(url, { method, headers, body, signal });
        if (res.ok) return res;
        const text = await res.text().catch(() => '');
        retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        failure = errorFromResponse(res.status, text, res.headers, {
          method,
          url,
          retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
        });
        // An access token refused (expired, revoked since it was cached): one fresh token, once.
        if (res.status === 401 && token && !refreshedToken && typeof this.opts.accessToken === 'object') {
          this.opts.accessToken.invalidate?.(token);
          refreshedToken = true;
          attempt--;
          continue;
        }
        const again =
          res.status === 429 || res.status === 503 || (res.status === 409 && failure.code === 'idempotency_key_in_use' && idempotencyKey !== undefined);
        if (!again || !retryable) throw failure;
      } catch (e) {
        if (e instanceof CwApiError) throw e;
        // The caller's own abort is not retried.
        if (options.signal?.aborted) throw options.signal.reason;
        const timedOut = timeout.aborted;
        failure = new CwApiError({
          status: 0,
          code: timedOut ? 'timeout' : 'network_error',
          detail: timedOut ? `No complete answer within ${this.opts.timeoutMs ?? 30_000} ms.` : `The request failed: ${(e as Error).message}`,
          method,
          url,
          cause: e,
        });
        if (!retryable) throw failure;
      }
      if (attempt >= retry.maxRetries) throw failure;
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) throw failure;
      const delayMs = retryAfterMs !== undefined ? retryAfterDelay(retryAfterMs) : backoffDelay(attempt, retry);
      this.opts.onRetry?.({ attempt: attempt + 1, delayMs, method, url, status: failure.status, code: failure.code, retryAfterMs });
      await sleep(delayMs, options.signal);
    }
  }
}
