/**
 * Zero-read authentication on the hot path, with revocation still on the next request: the
 * principal (credential, account and what the use cases memoise on it, such as the catalog scope)
 * is kept per process, keyed by the key's hash, and used only while the account's access stamp
 * is unchanged. The stamp is read on every request together with the rate-limit consume (one
 * round trip on Redis); any change to credentials, the account, its memberships or programs
 * bumps it (see access-versions.ts), so the very next request everywhere reads afresh.
 *
 * Without versions (an app on its own with the in-memory limiter and an external database) nothing
 * is cached: every request reads, as the stamp could not be trusted across processes.
 */
import { authModels, type AuthData } from './data/auth.data';
import type { CredentialType } from './data/credential.schema';
import type { AccessVersions } from './access-versions';
import { notAuthenticated, verifyHashedCredential, type Principal } from './credentials.service';
import { authorize, type Policy } from './policy';
import { hashSecret, looksLikeSecret } from './secrets';

interface Entry {
  principal: Principal;
  stamp: string;
  at: number;
}

export interface AccessCacheOptions {
  /** A backstop only (a lost bump): entries are re-read after this long whatever the stamp. */
  maxAgeMs?: number;
  maxEntries?: number;
}

export class AccessCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;

  constructor(
    readonly versions: AccessVersions | null,
    opts: AccessCacheOptions = {},
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? 60_000;
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  /**
   * Authenticates `secret` as one of `allowed`, authorizes it for `policy`, and calls `spend` with
   * its account (the rate-limit consume) — on a cache hit in the same tick as the stamp read, so
   * both share one round trip. Errors: the one 401, the policy's 403, whatever `spend` throws.
   */
  async authenticate(
    auth: AuthData,
    secret: string | undefined,
    allowed: readonly CredentialType[],
    policy: Policy,
    spend: (accountId: string) => Promise<void>,
    now = Date.now(),
  ): Promise<Principal> {
    if (!secret || !looksLikeSecret(secret)) throw notAuthenticated();
    const hash = hashSecret(secret);
    const hit = this.usable(hash, allowed, policy, now);
    if (hit) {
      const account = hit.principal.publisher._id;
      const [stamp, spent] = await Promise.allSettled([this.versions!.stamp(account), spend(account)]);
      if (stamp.status === 'fulfilled' && stamp.value === hit.stamp) {
        if (spent.status === 'rejected') throw spent.reason;
        return hit.principal;
      }
      // Something changed: read afresh (the budget is spent already).
      this.entries.delete(hash);
      const principal = await this.load(auth, hash, allowed, now);
      authorize(principal, policy);
      if (spent.status === 'rejected') throw spent.reason;
      return principal;
    }
    const principal = await this.load(auth, hash, allowed, now);
    authorize(principal, policy);
    await spend(principal.publisher._id);
    return principal;
  }

  /** A cached entry this request may try (it still has to match the stamp). */
  private usable(hash: string, allowed: readonly CredentialType[], policy: Policy, now: number): Entry | undefined {
    if (!this.versions) return undefined;
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (now - e.at >= this.maxAgeMs) {
      this.entries.delete(hash);
      return undefined;
    }
    if (!allowed.includes(e.principal.type)) return undefined;
    try {
      authorize(e.principal, policy);
    } catch {
      return undefined; // a refusal is always confirmed by a fresh read
    }
    return e;
  }

  /**
   * Reads the credential and account. To cache them, the stamp is read after learning the
   * account and before the reads it vouches for: a change committed after the stamp read bumps
   * it, so the entry can never outlive the state it was read from.
   */
  private async load(auth: AuthData, hash: string, allowed: readonly CredentialType[], now: number): Promise<Principal> {
    if (!this.versions) return verifyHashedCredential(auth, hash, allowed);
    const owner = await authModels(auth).Credential.findOne({ hash }, { publisher_id: 1 }).lean();
    if (!owner?.publisher_id) throw notAuthenticated();
    let stamp: string | null = null;
    try {
      stamp = await this.versions.stamp(owner.publisher_id);
    } catch {
      // The versions store is down: answer from fresh reads, cache nothing (the limiter says 503).
    }
    const principal = await verifyHashedCredential(auth, hash, allowed);
    if (stamp === null) return principal;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const versions = this.versions;
    const cached: Principal = { ...principal, memo: new Map<string, Promise<unknown>>(), catalogStamp: () => versions.catalogStamp() };
    this.entries.set(hash, { principal: cached, stamp, at: now });
    return cached;
  }
}

/**
 * A value computed once per cached principal (valid while its stamp is): the catalog scope of a
 * search, for example. Without a cache entry it is computed on every call.
 */
export function memoized<T>(principal: Principal, key: string, compute: () => Promise<T>): Promise<T> {
  const memo = principal.memo;
  if (!memo) return compute();
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = compute();
    memo.set(key, p);
    p.catch(() => memo.delete(key));
  }
  return p;
}
