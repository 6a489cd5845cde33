/**
 * The auth domain's data: credentials (every kind, stored as SHA-256 hashes) and the publisher
 * accounts they belong to. Other libs reach it through `AuthData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { announceAccessChanges, defineDomain, modelVault } from '@cw/db';
import { credentialSchema, type CredentialDoc } from './credential.schema';
import { publisherSchema, type PublisherDoc } from './publisher.schema';

export type PublisherRow = PublisherDoc & { _id: string };
export type PublisherInput = Pick<PublisherDoc, 'name'> & Partial<PublisherDoc> & { _id: string };
export type CredentialRow = CredentialDoc & { _id: unknown };

export interface AuthModels {
  Publisher: Model<PublisherDoc>;
  Credential: Model<CredentialDoc>;
}

announceAccessChanges(publisherSchema, { accountField: '_id' });
announceAccessChanges(credentialSchema, { accountField: 'publisher_id', resolveByIds: true });

const { DomainHandle, open } = modelVault<AuthModels>('auth');

/** Publisher accounts and credentials: what other domains may read and change of them. */
export class AuthData extends DomainHandle {
  /** Creates accounts through the schema (defaults and validation), in one write. */
  async createPublishers(accounts: PublisherInput[]): Promise<void> {
    await open(this).Publisher.insertMany(accounts);
  }

  publisherById(id: string): Promise<PublisherRow | null> {
    return open(this).Publisher.findById(id).lean<PublisherRow>();
  }

  async publisherExists(id: string): Promise<boolean> {
    return !!(await open(this).Publisher.exists({ _id: id }));
  }

  /** Sets fields of an account; false when it does not exist. */
  async updatePublisher(id: string, fields: Partial<PublisherDoc>): Promise<boolean> {
    const r = await open(this).Publisher.updateOne({ _id: id }, { $set: { ...fields, updated_at: new Date() } });
    return r.matchedCount === 1;
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
  { Publisher: [publisherSchema, 'publishers'], Credential: [credentialSchema, 'credentials'] },
  (m: AuthModels) => new AuthData(m),
);
