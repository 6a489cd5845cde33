/**
 * The auth domain's data: credentials (every kind, stored as SHA-256 hashes) and the publisher
 * accounts they belong to. Other libs reach it through `AuthData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { announceAccessChanges, defineDomain, modelVault } from '@cw/db';
import { credentialSchema, credentialUseSchema, type CredentialDoc, type CredentialUseDoc } from './credential.schema';
import { publisherSchema, type PublisherDoc } from './publisher.schema';

export type PublisherRow = PublisherDoc & { _id: string };
export type PublisherInput = Pick<PublisherDoc, 'name'> & Partial<PublisherDoc> & { _id: string };
export type CredentialRow = CredentialDoc & { _id: unknown };

export interface AuthModels {
  Publisher: Model<PublisherDoc>;
  Credential: Model<CredentialDoc>;
  CredentialUse: Model<CredentialUseDoc>;
}

/** Last-used times are kept to this resolution: one write per credential and process at most this often. */
const USE_RESOLUTION_MS = 60_000;

announceAccessChanges(publisherSchema, { accountField: '_id' });
announceAccessChanges(credentialSchema, { accountField: 'publisher_id', resolveByIds: true });

const { DomainHandle, open } = modelVault<AuthModels>('auth');

/** Publisher accounts and credentials: what other domains may read and change of them. */
export class AuthData extends DomainHandle {
  /** When this process last noted each credential's use (bounded: cleared when it grows past 50,000). */
  private readonly noted = new Map<string, number>();

  /**
   * Notes that a credential was used (the portal's "last used"): at most one write per credential
   * and process a minute, never awaited by the request that used it; a failed write is tried again
   * on the next use.
   */
  noteCredentialUse(credentialId: string, now = Date.now()): void {
    const last = this.noted.get(credentialId);
    if (last !== undefined && now - last < USE_RESOLUTION_MS) return;
    if (this.noted.size >= 50_000) this.noted.clear();
    this.noted.set(credentialId, now);
    open(this)
      .CredentialUse.updateOne({ _id: credentialId }, { $max: { last_used_at: new Date(now) } }, { upsert: true })
      .catch(() => this.noted.delete(credentialId));
  }

  /** Last-used times of these credentials (absent: never used since uses were recorded). */
  async lastUsed(credentialIds: string[]): Promise<Map<string, Date>> {
    const rows = await open(this)
      .CredentialUse.find({ _id: { $in: credentialIds } })
      .lean();
    return new Map(rows.map((r) => [String(r._id), r.last_used_at]));
  }

  /** Creates accounts through the schema (defaults and validation), in one write. */
  async createPublishers(accounts: PublisherInput[]): Promise<void> {
    await open(this).Publisher.insertMany(accounts);
  }

  publisherById(id: string): Promise<PublisherRow | null> {
    return open(this).Publisher.findById(id).lean<PublisherRow>();
  }

  /** Several accounts by id, in one read (those that exist). */
  publishersByIds(ids: string[]): Promise<PublisherRow[]> {
    return ids.length
      ? open(this)
          .Publisher.find({ _id: { $in: ids } })
          .lean<PublisherRow[]>()
      : Promise.resolve([]);
  }

  async publisherExists(id: string): Promise<boolean> {
    return !!(await open(this).Publisher.exists({ _id: id }));
  }

  /** Sets fields of an account; false when it does not exist. */
  async updatePublisher(id: string, fields: Partial<PublisherDoc>): Promise<boolean> {
    const r = await open(this).Publisher.updateOne({ _id: id }, { $set: { ...fields, updated_at: new Date() } });
    return r.matchedCount === 1;
  }

  /** Accounts newest first, optionally of one status (the operators' list). */
  listPublishers(status: PublisherDoc['status'] | undefined, limit: number): Promise<PublisherRow[]> {
    return open(this)
      .Publisher.find(status ? { status } : {})
      .sort({ created_at: -1, _id: 1 })
      .limit(limit)
      .lean<PublisherRow[]>();
  }

  /** An account's credentials of every kind and status, newest first (the portal's keys page). */
  credentialsOf(publisherId: string, limit = 500): Promise<CredentialRow[]> {
    return open(this).Credential.find({ publisher_id: publisherId }, { hash: 0 }).sort({ created_at: -1 }).limit(limit).lean<CredentialRow[]>();
  }

  /** A credential by its id (a feed URL names the key that signed it); null for a malformed id. */
  credentialById(id: string): Promise<CredentialRow | null> {
    if (!/^[a-f0-9]{24}$/.test(id)) return Promise.resolve(null);
    return open(this).Credential.findById(id).lean<CredentialRow>();
  }
}

/** The auth lib's own models (not exported from the lib). */
export const authModels = (data: AuthData): AuthModels => open(data);

export const authDomain = defineDomain(
  'auth',
  { Publisher: [publisherSchema, 'publishers'], Credential: [credentialSchema, 'credentials'], CredentialUse: [credentialUseSchema, 'credential_uses'] },
  (m: AuthModels) => new AuthData(m),
);
