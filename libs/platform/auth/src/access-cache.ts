/**
 * Zero-read authentication on the hot path, with revocation still on the next request: the
 * principal (credential and account) is kept per process, keyed by the key's hash, and used only while the account's access stamp
 * is unchanged. The stamp is read on every request together with the rate-limit consume (one
 * round trip on Redis); any change to credentials, the account, its memberships or programs
 * bumps it (see access-versions.ts), so the very next request everywhere reads afresh.
 *
 * Without versions (an app on its own with the in-memory limiter and an external database) nothing
 * is cached: every request reads, as the stamp could not be trusted across processes.
 *
 * A cached principal is one object for as long as its entry is valid (a changed stamp replaces
 * it), so what is computed from it is kept against that object (`PrincipalMemo`), and `vouches`
 * tells whether this request read its stamp (the composition root trusts the catalog's version,
 * read in the same MGET, only then): nothing is stored on the principal itself.
 *
 * Both are namespaces of the one cache abstraction (`@cw/cache`, docs/decisions/0045-one-cache-abstraction.md).
 */
import { CacheNamespace, type CacheSpec } from '@cw/cache';
import { authModels, type AuthData } from './data/auth.data';
import type { CredentialType } from './data/credential.schema';
import type { AccessVersions } from './access-versions';
import { notAuthenticated, verifyHashedCredential, type Principal } from './credentials.service';
import { authorize, type Policy } from './policy';
import { hashSecret, looksLikeSecret } from './secrets';
import { looksLikeAccessToken } from '@cw/oauth';

interface Entry {
  principal: Principal;
  /** Access tokens: the resource it is for (a token answers for one only). */
  resource?: OAuthResource;
}

/** Principals by key (or access token) hash, stored under the account's access stamp read before the reads. */
export const PRINCIPALS_CACHE: CacheSpec = {
  name: 'auth.principals',
  keeps: "A key's or access token's principal (credential, account), by the secret's SHA-256",
  maxEntries: 10_000,
  freshMs: 60_000,
  invalidation:
    "The account's access stamp changes (read with every request's rate-limit consume); an access token expires. Nothing is cached without access versions.",
};

/** Which resource server a call is made to: the publisher API or MCP (an access token is for one). */
export type OAuthResource = 'publisherApi' | 'mcp';

/** An access token's claims, once its signature, expiry and audience are verified. */
export interface VerifiedToken {
  accountId: string;
}

/**
 * How access tokens are checked; the composition root builds it (the provider's keys, the grants,
 * the people). Both throw the platform's 401 (with its `WWW-Authenticate` challenge) on refusal.
 */
export interface TokenAuthority<C extends VerifiedToken = VerifiedToken> {
  /** Signature, expiry, issuer and audience (`resource`): no I/O. */
  verify(token: string, resource: OAuthResource): Promise<C>;
  /** The principal the verified token is: its grant still stands, its person is still a member, the account is active. */
  load(claims: C, resource: OAuthResource): Promise<Principal>;
  /** Notes a use of a cached token's principal (its grant's "last used"). */
  used(principal: Principal): void;
}

export interface AccessCacheOptions {
  /** A backstop only (a lost bump): entries are re-read after this long whatever the stamp. */
  maxAgeMs?: number;
  maxEntries?: number;
  /** Access tokens of apps acting for people (OAuth), beside keys; absent: bearer tokens are unknown secrets (401). */
  tokens?: TokenAuthority;
}

export class AccessCache {
  readonly entries: CacheNamespace<string, Entry>;
  /** The principals this cache vouches for (its entries' objects, while they are valid). */
  private readonly vouched = new WeakSet<Principal>();
  private readonly forgotten: Array<(principal: Principal) => void> = [];
  private readonly tokens?: TokenAuthority;

  constructor(
    readonly versions: AccessVersions | null,
    opts: AccessCacheOptions = {},
  ) {
    this.entries = new CacheNamespace<string, Entry>(PRINCIPALS_CACHE, {
      maxEntries: opts.maxEntries,
      freshMs: opts.maxAgeMs,
      onDrop: (_, e) => {
        this.vouched.delete(e.principal);
        for (const f of this.forgotten) f(e.principal);
      },
    });
    this.tokens = opts.tokens;
  }

  /** Calls `f` with every principal this cache stops vouching for (what is kept against it can go). */
  onForget(f: (principal: Principal) => void): void {
    this.forgotten.push(f);
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
    resource: OAuthResource = 'publisherApi',
    now = Date.now(),
  ): Promise<Principal> {
    if (secret && this.tokens && looksLikeAccessToken(secret)) {
      // Where only another credential kind works (the reporting token, the offers credential), an
      // access token authenticates nothing, as every other kind there (401); where the account's
      // keys work, a token is authenticated and its scopes decide (403 insufficient_scope).
      if (!policy.scope && !allowed.includes('api_key')) throw notAuthenticated();
      return this.authenticateToken(this.tokens, secret, resource, policy, spend, now);
    }
    if (!secret || !looksLikeSecret(secret)) throw notAuthenticated();
    const hash = hashSecret(secret);
    const hit = this.usable(hash, allowed, policy, now);
    if (hit) {
      const account = hit.principal.publisher._id;
      const [stamp, spent] = await Promise.allSettled([this.versions!.stamp(account), spend(account)]);
      if (stamp.status === 'fulfilled' && this.entries.get(hash, { stamp: stamp.value, now })?.principal === hit.principal) {
        if (spent.status === 'rejected') throw spent.reason;
        auth.noteCredentialUse(hit.principal.credentialId, now);
        return hit.principal;
      }
      // Something changed: read afresh (the budget is spent already).
      this.drop(hash);
      const principal = await this.load(auth, hash, allowed, now);
      authorize(principal, policy);
      if (spent.status === 'rejected') throw spent.reason;
      return principal;
    }
    this.entries.counts.misses++;
    const principal = await this.load(auth, hash, allowed, now);
    authorize(principal, policy);
    await spend(principal.publisher._id);
    return principal;
  }

  /**
   * An app's access token: verified (signature, expiry, audience) once, then kept like a key's
   * principal, keyed by its hash, while the account's stamp is unchanged and the token unexpired: a
   * revoked grant, a person removed or the account deactivated bumps the stamp, so the next
   * request reads afresh and is refused.
   */
  private async authenticateToken(
    tokens: TokenAuthority,
    token: string,
    resource: OAuthResource,
    policy: Policy,
    spend: (accountId: string) => Promise<void>,
    now: number,
  ): Promise<Principal> {
    const hash = hashSecret(token);
    const e = this.versions ? this.entries.peek(hash, now)?.value : undefined;
    if (e && e.resource === resource && now < (e.principal.oauth?.expiresAt ?? 0) && allows(e.principal, policy)) {
      const account = e.principal.publisher._id;
      const [stamp, spent] = await Promise.allSettled([this.versions!.stamp(account), spend(account)]);
      if (stamp.status === 'fulfilled' && this.entries.get(hash, { stamp: stamp.value, now })?.principal === e.principal) {
        if (spent.status === 'rejected') throw spent.reason;
        tokens.used(e.principal);
        return e.principal;
      }
      this.drop(hash);
      const principal = await this.loadToken(tokens, token, hash, resource, now);
      authorize(principal, policy);
      if (spent.status === 'rejected') throw spent.reason;
      return principal;
    }
    this.entries.counts.misses++;
    const principal = await this.loadToken(tokens, token, hash, resource, now);
    authorize(principal, policy);
    await spend(principal.publisher._id);
    return principal;
  }

  /** As `load` for keys: the stamp is read after learning the account and before the reads it vouches for. */
  private async loadToken(tokens: TokenAuthority, token: string, hash: string, resource: OAuthResource, now: number): Promise<Principal> {
    this.entries.counts.loads++;
    const claims = await tokens.verify(token, resource);
    let stamp: string | null = null;
    try {
      stamp = this.versions ? await this.versions.stamp(claims.accountId) : null;
    } catch {
      // The versions store is down: answer from fresh reads, cache nothing.
    }
    const principal = await tokens.load(claims, resource);
    if (stamp === null || !this.entries.enabled) return principal;
    this.entries.set(hash, { principal, resource }, { stamp, now });
    this.vouched.add(principal);
    return principal;
  }

  /** A cached entry this request may try (it still has to match the stamp). */
  private usable(hash: string, allowed: readonly CredentialType[], policy: Policy, now: number): Entry | undefined {
    if (!this.versions) return undefined;
    const e = this.entries.peek(hash, now)?.value;
    if (!e) {
      this.drop(hash); // expired (its principal is vouched for no more)
      return undefined;
    }
    if (!(allowed as readonly string[]).includes(e.principal.type)) return undefined;
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
    this.entries.counts.loads++;
    const owner = await authModels(auth).Credential.findOne({ hash }, { publisher_id: 1 }).lean();
    if (!owner?.publisher_id) throw notAuthenticated();
    let stamp: string | null = null;
    try {
      stamp = await this.versions.stamp(owner.publisher_id);
    } catch {
      // The versions store is down: answer from fresh reads, cache nothing (the limiter says 503).
    }
    const principal = await verifyHashedCredential(auth, hash, allowed);
    if (stamp === null || !this.entries.enabled) return principal;
    const cached: Principal = { ...principal };
    this.entries.set(hash, { principal: cached }, { stamp, now });
    this.vouched.add(cached);
    return cached;
  }

  /** Forgets an entry: its principal is vouched for no more (what was kept against it goes with it). */
  private drop(hash: string): void {
    this.entries.delete(hash);
  }

  /** True when `principal` is one of this cache's entries, validated by its access stamp on this request. */
  vouches(principal: Principal): boolean {
    return this.vouched.has(principal);
  }
}

/** Whether the policy lets this principal through (a refusal is always confirmed by a fresh read). */
function allows(principal: Principal, policy: Policy): boolean {
  try {
    authorize(principal, policy);
    return true;
  } catch {
    return false;
  }
}

/**
 * A value computed once per cached principal, valid while its stamp is (the catalog scope of a
 * search, for example): a namespace keyed by the principal object, whose entry goes when the
 * principal's entry in the access cache is replaced or dropped. A principal the access cache does
 * not vouch for computes every time. Bound: the access cache's; concurrent computations are
 * shared; a failure is not remembered.
 */
export class PrincipalMemo<T> {
  readonly values: CacheNamespace<Principal, T>;

  /** `spec`: the namespace's declaration (its bound and freshness are the access cache's). */
  constructor(
    private readonly access: AccessCache,
    spec: CacheSpec,
  ) {
    this.values = new CacheNamespace<Principal, T>(spec, { maxEntries: access.entries.maxEntries, freshMs: access.entries.freshMs });
    access.onForget((principal) => this.values.delete(principal));
  }

  get(principal: Principal, compute: () => Promise<T>): Promise<T> {
    if (!this.access.vouches(principal)) return compute();
    return this.values.through(principal, compute);
  }
}
