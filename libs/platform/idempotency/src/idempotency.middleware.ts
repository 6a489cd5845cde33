/**
 * Idempotency-Key (DESIGN): scope (account, method, route, key); the body is fingerprinted
 * (SHA-256 of canonical JSON); the first completed response (status, body) is replayed for 24 h,
 * byte for byte, with `Idempotent-Replayed: true`; another body under the key is 409
 * `idempotency_key_reused`; a request while the first is still running is 409
 * `idempotency_key_in_use` (with Retry-After); 5xx is not stored, so the key can be retried.
 */
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { ApiError } from '@cw/errors';
import { idempotencyModels, type IdempotencyData } from './data/idempotency.data';
import { IDEMPOTENCY_TTL_SECONDS } from './data/idempotency.schema';
import { renderError, toApiError } from '@cw/http';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const MAX_KEY_LENGTH = 255;
/** A running claim not finished within this is considered abandoned and may be taken over. */
const LOCK_MS = 60_000;

/** JSON with object keys sorted at every level: equal bodies give equal fingerprints. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value as Record<string, unknown>).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface IdempotencyOptions {
  /** Where keys are kept (the idempotency lib's data). */
  data: IdempotencyData;
  /** The account the key belongs to (read after authentication). */
  account: (ctx: Context) => string;
  /** The route's identity in the scope, e.g. 'POST /links'. */
  route: string;
}

function readKey(ctx: Context): string | undefined {
  const raw = ctx.get(IDEMPOTENCY_HEADER);
  if (!raw) return undefined;
  if (raw.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ApiError({
      code: 'idempotency_key_invalid',
      detail: `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters.`,
      errors: [{ param: IDEMPOTENCY_HEADER, detail: `must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters` }],
    });
  }
  return raw;
}

function replay(ctx: Context, doc: StoredResponse): void {
  ctx.status = doc.status;
  ctx.type = doc.contentType;
  ctx.set('Idempotent-Replayed', 'true');
  ctx.body = doc.body;
}

/** What is stored and replayed: the first completed answer, byte for byte. */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface IdempotencyScope {
  /** Where keys are kept (the idempotency lib's data). */
  data: IdempotencyData;
  account: string;
  method: string;
  route: string;
  key: string;
  /** The request's content (fingerprinted: another content under the key is 409). */
  request: unknown;
}

/**
 * The rule without a framework (HTTP routes and MCP tools share it, and one scope: the same key
 * replays across both). `run` answers what to store, or null when nothing may be stored (a 5xx:
 * the claim is released so a retry runs again); a throw releases the claim too.
 */
export async function runIdempotent(
  scope: IdempotencyScope,
  run: () => Promise<StoredResponse | null>,
): Promise<(StoredResponse & { replayed: boolean }) | null> {
  const { Idempotency } = idempotencyModels(scope.data);
  const id = sha256(`${scope.account}\u0000${scope.method}\u0000${scope.route}\u0000${scope.key}`);
  const fingerprint = sha256(canonicalJson(scope.request ?? null));
  const now = new Date();

  const claim = {
    publisher_id: scope.account,
    method: scope.method,
    route: scope.route,
    fingerprint,
    state: 'running',
    locked_until: new Date(now.getTime() + LOCK_MS),
    created_at: now,
  };
  let claimed = false;
  try {
    await Idempotency.collection.insertOne({ _id: id as never, ...claim });
    claimed = true;
  } catch (e) {
    if ((e as { code?: number }).code !== 11000) throw e;
  }
  let existing = claimed ? null : await Idempotency.findById(id).lean();
  // A key is forgotten 24 h after its first use, whenever the TTL monitor gets to the record
  // (every 60 s on MongoDB): an expired record still there is taken over, as if it were gone.
  if (existing && existing.created_at.getTime() <= now.getTime() - IDEMPOTENCY_TTL_SECONDS * 1000) {
    const { modifiedCount } = await Idempotency.collection.replaceOne({ _id: id as never, created_at: existing.created_at }, claim);
    if (modifiedCount === 1) [claimed, existing] = [true, null];
    else existing = await Idempotency.findById(id).lean();
  }
  if (!claimed) {
    if (!existing) {
      // Expired and swept between our insert and this read: the client may simply retry.
      throw new ApiError({
        code: 'idempotency_key_in_use',
        detail: 'This Idempotency-Key is being processed. Retry shortly.',
        headers: { 'Retry-After': '1' },
      });
    }
    if (existing.fingerprint !== fingerprint) {
      throw new ApiError({ code: 'idempotency_key_reused', detail: 'This Idempotency-Key was already used with a different request body.' });
    }
    if (existing.state === 'done')
      return { status: existing.status ?? 200, contentType: existing.content_type ?? 'application/json', body: existing.body ?? '', replayed: true };
    const expired = existing.locked_until.getTime() <= now.getTime();
    const taken =
      expired &&
      (
        await Idempotency.updateOne(
          { _id: id, state: 'running', locked_until: existing.locked_until },
          { $set: { locked_until: new Date(now.getTime() + LOCK_MS) } },
        )
      ).modifiedCount === 1;
    if (!taken) {
      throw new ApiError({
        code: 'idempotency_key_in_use',
        detail: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
        headers: { 'Retry-After': '1' },
      });
    }
  }

  let stored: StoredResponse | null;
  try {
    stored = await run();
  } catch (err) {
    await Idempotency.deleteOne({ _id: id, state: 'running' });
    throw err;
  }
  if (!stored) {
    await Idempotency.deleteOne({ _id: id, state: 'running' });
    return null;
  }
  await Idempotency.updateOne({ _id: id }, { $set: { state: 'done', status: stored.status, body: stored.body, content_type: stored.contentType } });
  return { ...stored, replayed: false };
}

/** Runs the rest of the route at most once per key; see the module comment for the rules. */
export function idempotent(opts: IdempotencyOptions): Middleware {
  return async (ctx, next) => {
    const key = readKey(ctx);
    if (key === undefined) return next();
    const scope = {
      data: opts.data,
      account: opts.account(ctx),
      method: ctx.method,
      route: opts.route,
      key,
      request: (ctx.request as { body?: unknown }).body,
    };
    const outcome = await runIdempotent(scope, async () => {
      try {
        await next();
      } catch (err) {
        const apiError = toApiError(err, ctx);
        if (!apiError || apiError.status >= 500) throw err;
        renderError(ctx, apiError); // stored and replayed like any other answer
      }
      if (ctx.status >= 500) return null;
      // Freeze the body as the exact bytes sent, so the replay is identical.
      const body = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body ?? null);
      const contentType = ctx.response.get('Content-Type') || 'application/json; charset=utf-8';
      ctx.body = body;
      ctx.type = contentType;
      return { status: ctx.status, contentType, body };
    });
    if (outcome?.replayed) replay(ctx, outcome);
  };
}
