/**
 * The OAuth domain's data: everything the authorization server keeps (grants, sessions, codes,
 * refresh tokens, registered clients, interactions) in one collection, `oauth_records`, written
 * only by `_id`. oidc-provider reaches it through the adapter class `adapterFactory()` returns;
 * the portal (Settings, Apps) and the resource servers through `OAuthData`'s other methods.
 */
import type { Model } from 'mongoose';
import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import { defineDomain, modelVault } from '@cw/db';
import { oauthRecordSchema, type OAuthRecordDoc } from './oauth-record.schema';

export interface OAuthModels {
  OAuthRecord: Model<OAuthRecordDoc>;
}

type RecordRow = OAuthRecordDoc & { _id: string };

/** One grant of an account, as Settings, Apps lists it. */
export interface GrantRow {
  grantId: string;
  clientId: string;
  /** The person who granted it (the token's `sub`). */
  personId: string;
  /** The publisher account it acts for. */
  accountId: string;
  /** Scopes granted per resource indicator. */
  resources: Record<string, string[]>;
  /** Scopes granted outside resources (`openid`, `offline_access`). */
  scopes: string[];
  createdAt: Date;
  expiresAt?: Date;
  lastUsedAt?: Date;
}

/** A registered client, as the consent page and Settings, Apps name it. */
export interface ClientRow {
  clientId: string;
  clientName?: string;
  redirectUris: string[];
  /** Where it may send a person after signing out (RP-initiated logout, with its ID token). */
  postLogoutRedirectUris: string[];
  createdAt?: Date;
  /** When an operator disabled it. */
  disabledAt?: Date;
}

/** A grant removed, whatever removed it (the portal, a revoked or reused refresh token). */
export interface GrantRevoked {
  grantId: string;
  /** The publisher account it acted for (absent: never bound, so no token of it acted). */
  accountId?: string;
  clientId?: string;
  personId?: string;
}
export type GrantRevokedListener = (event: GrantRevoked) => Promise<void> | void;

/** Last-used times are kept to this resolution: one write per grant and process at most this often. */
const USE_RESOLUTION_MS = 60_000;
const GRANT = 'Grant';

const { DomainHandle, open } = modelVault<OAuthModels>('oauth');

const recordId = (model: string, id: string): string => `${model}:${id}`;
const epochSeconds = (d: Date): number => Math.floor(d.getTime() / 1000);
const live = (row: { expires_at?: Date | null } | null, now = Date.now()): boolean => !!row && (!row.expires_at || row.expires_at.getTime() > now);
const asString = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((u): u is string => typeof u === 'string') : []);

function scopeList(value: unknown): string[] {
  return typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
}

/** The authorization server's records, and what the platform asks of its grants and clients. */
export class OAuthData extends DomainHandle {
  private readonly revokedListeners = new Set<GrantRevokedListener>();
  private readonly noted = new Map<string, number>();

  /**
   * The adapter class oidc-provider is configured with (`adapter: data.oauth.adapterFactory()`):
   * one instance per provider model, every record in `oauth_records` keyed `<Model>:<id>`.
   */
  adapterFactory(): AdapterConstructor {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the adapter class closes over this handle
    const data = this;
    const { OAuthRecord } = open(this);
    return class OAuthRecordAdapter implements Adapter {
      constructor(private readonly name: string) {}

      async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
        const set: Record<string, unknown> = { model: this.name, payload };
        const unset: Record<string, ''> = {};
        const fields: Array<[string, unknown]> = [
          ['expires_at', expiresIn ? new Date(Date.now() + expiresIn * 1000) : undefined],
          ['grant_id', this.name === GRANT ? id : asString(payload.grantId)],
          ['client_id', this.name === GRANT ? asString(payload.clientId) : undefined],
          ['uid', asString(payload.uid)],
          ['user_code', asString(payload.userCode)],
        ];
        for (const [field, value] of fields) {
          if (value === undefined) unset[field] = '';
          else set[field] = value;
        }
        await OAuthRecord.updateOne({ _id: recordId(this.name, id) }, Object.keys(unset).length ? { $set: set, $unset: unset } : { $set: set }, {
          upsert: true,
        });
      }

      find(id: string): Promise<AdapterPayload | undefined> {
        return this.first({ _id: recordId(this.name, id) });
      }

      findByUid(uid: string): Promise<AdapterPayload | undefined> {
        return this.first({ uid, model: this.name });
      }

      findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
        return this.first({ user_code: userCode, model: this.name });
      }

      async consume(id: string): Promise<void> {
        await OAuthRecord.updateOne({ _id: recordId(this.name, id) }, { $set: { consumed: new Date() } });
      }

      async destroy(id: string): Promise<void> {
        if (this.name === GRANT) await data.removeGrant(id);
        else await OAuthRecord.deleteOne({ _id: recordId(this.name, id) });
      }

      async revokeByGrantId(grantId: string): Promise<void> {
        await OAuthRecord.deleteMany({ grant_id: grantId, model: this.name });
      }

      /** The payload of a live record (a disabled client is none); a consumed one carries `consumed` (when, in seconds). */
      private async first(filter: Record<string, string>): Promise<AdapterPayload | undefined> {
        const row = await OAuthRecord.findOne(filter).lean<RecordRow>();
        if (!row || !live(row) || row.disabled_at) return undefined;
        const payload = row.payload as AdapterPayload;
        return row.consumed ? { ...payload, consumed: epochSeconds(row.consumed) } : payload;
      }
    };
  }

  /** Calls `listener` after every grant removed (revoked in the portal, by the revocation endpoint, or for a reused refresh token); returns the unsubscribe. */
  onGrantRevoked(listener: GrantRevokedListener): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /**
   * Binds a grant to the publisher account it acts for (at consent, after the grant is saved).
   * A grant's account never changes: false when the grant does not exist or acts for another.
   */
  async bindGrantAccount(grantId: string, accountId: string): Promise<boolean> {
    const { OAuthRecord } = open(this);
    const _id = recordId(GRANT, grantId);
    const r = await OAuthRecord.updateOne({ _id, $or: [{ account_id: { $exists: false } }, { account_id: accountId }] }, { $set: { account_id: accountId } });
    return r.matchedCount === 1;
  }

  /** The publisher account a live grant acts for (undefined: no such grant, expired, or not bound). */
  async grantAccount(grantId: string): Promise<string | undefined> {
    const row = await open(this)
      .OAuthRecord.findOne({ _id: recordId(GRANT, grantId) }, { account_id: 1, expires_at: 1 })
      .lean<RecordRow>();
    return live(row) ? (row!.account_id ?? undefined) : undefined;
  }

  /** A live grant (for a resource server's check that a token's grant still stands); null when revoked or expired. */
  async grantById(grantId: string): Promise<GrantRow | null> {
    const row = await open(this)
      .OAuthRecord.findOne({ _id: recordId(GRANT, grantId) })
      .lean<RecordRow>();
    return live(row) && row!.account_id ? grantRow(row!) : null;
  }

  /** An account's live grants, newest first (Settings, Apps). */
  async grantsOfAccount(accountId: string, limit = 500): Promise<GrantRow[]> {
    const rows = await open(this).OAuthRecord.find({ account_id: accountId, model: GRANT }).limit(limit).lean<RecordRow[]>();
    const now = Date.now();
    return rows
      .filter((r) => live(r, now))
      .map(grantRow)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  /** Registered clients by id (their names for the consent page and Settings, Apps). */
  async clientsByIds(clientIds: string[]): Promise<Map<string, ClientRow>> {
    if (!clientIds.length) return new Map();
    const rows = await open(this)
      .OAuthRecord.find({ _id: { $in: [...new Set(clientIds)].map((id) => recordId('Client', id)) } })
      .lean<RecordRow[]>();
    return new Map(
      rows.map((r) => {
        const p = r.payload as Record<string, unknown>;
        const clientId = r._id.slice('Client:'.length);
        const issuedAt = typeof p.client_id_issued_at === 'number' ? new Date(p.client_id_issued_at * 1000) : undefined;
        const row: ClientRow = {
          clientId,
          clientName: asString(p.client_name),
          redirectUris: strings(p.redirect_uris),
          postLogoutRedirectUris: strings(p.post_logout_redirect_uris),
          ...(issuedAt ? { createdAt: issuedAt } : {}),
          ...(r.disabled_at ? { disabledAt: r.disabled_at } : {}),
        };
        return [clientId, row];
      }),
    );
  }

  /**
   * Revokes a grant: removes it and every code and refresh token of it. `accountId`: only a grant
   * acting for that account (the portal revokes within the account it shows). False: no such grant.
   * Access tokens already issued (signed, 10 minutes) stop at the resource server, which checks
   * the grant (`grantById`) whenever the account's access stamp changed.
   */
  async revokeGrant(grantId: string, accountId?: string): Promise<boolean> {
    return this.removeGrant(grantId, accountId);
  }

  /**
   * Disables a registered app (an operator's act): the provider no longer finds it, so it can
   * neither authorize nor refresh, and every grant of it is revoked (the listeners hear of each).
   * False: no such app. Its records stay, so the portal still names it.
   */
  async disableClient(clientId: string): Promise<{ found: boolean; grantsRevoked: number }> {
    const { OAuthRecord } = open(this);
    const r = await OAuthRecord.updateOne({ _id: recordId('Client', clientId) }, { $set: { disabled_at: new Date() } });
    if (r.matchedCount !== 1) return { found: false, grantsRevoked: 0 };
    const grants = await OAuthRecord.find({ client_id: clientId, model: GRANT }, { _id: 1 }).lean<Array<{ _id: string }>>();
    let grantsRevoked = 0;
    for (const g of grants) if (await this.removeGrant(g._id.slice(`${GRANT}:`.length))) grantsRevoked++;
    return { found: true, grantsRevoked };
  }

  /** Enables a disabled app again (its revoked grants stay revoked); false: no such app. */
  async enableClient(clientId: string): Promise<boolean> {
    const r = await open(this).OAuthRecord.updateOne({ _id: recordId('Client', clientId) }, { $unset: { disabled_at: '' } });
    return r.matchedCount === 1;
  }

  /**
   * Notes that a grant's token was used (Settings, Apps, "last used"): at most one write per grant
   * and process a minute, never awaited by the request that used it.
   */
  noteGrantUse(grantId: string, now = Date.now()): void {
    const last = this.noted.get(grantId);
    if (last !== undefined && now - last < USE_RESOLUTION_MS) return;
    if (this.noted.size >= 50_000) this.noted.clear();
    this.noted.set(grantId, now);
    open(this)
      .OAuthRecord.updateOne({ _id: recordId(GRANT, grantId) }, { $max: { last_used_at: new Date(now) } })
      .catch(() => this.noted.delete(grantId));
  }

  /** Removes a grant record and all records of it; then tells the listeners. */
  private async removeGrant(grantId: string, accountId?: string): Promise<boolean> {
    const { OAuthRecord } = open(this);
    const filter = accountId === undefined ? { _id: recordId(GRANT, grantId) } : { _id: recordId(GRANT, grantId), account_id: accountId };
    const removed = await OAuthRecord.findOneAndDelete(filter).lean<RecordRow>();
    if (!removed) return false;
    await OAuthRecord.deleteMany({ grant_id: grantId });
    const p = removed.payload as Record<string, unknown>;
    const event: GrantRevoked = { grantId };
    if (removed.account_id) event.accountId = removed.account_id;
    if (asString(p.clientId)) event.clientId = asString(p.clientId);
    if (asString(p.accountId)) event.personId = asString(p.accountId);
    await Promise.all([...this.revokedListeners].map((l) => l(event)));
    return true;
  }
}

function grantRow(r: RecordRow): GrantRow {
  const p = r.payload as {
    accountId?: string;
    clientId?: string;
    iat?: number;
    exp?: number;
    openid?: { scope?: string };
    resources?: Record<string, string>;
  };
  return {
    grantId: r._id.slice(`${GRANT}:`.length),
    clientId: p.clientId ?? '',
    personId: p.accountId ?? '',
    accountId: r.account_id ?? '',
    resources: Object.fromEntries(Object.entries(p.resources ?? {}).map(([k, v]) => [k, scopeList(v)])),
    scopes: scopeList(p.openid?.scope),
    createdAt: new Date((p.iat ?? 0) * 1000),
    ...(r.expires_at ? { expiresAt: r.expires_at } : {}),
    ...(r.last_used_at ? { lastUsedAt: r.last_used_at } : {}),
  };
}

export const oauthDomain = defineDomain('oauth', { OAuthRecord: [oauthRecordSchema, 'oauth_records'] }, (m: OAuthModels) => new OAuthData(m));
