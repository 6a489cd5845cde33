/**
 * The auth domain's data: credentials (every kind, stored as SHA-256 hashes) and the publisher
 * accounts they belong to. Other libs reach it through `AuthData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { announceAccessChanges, defineDomain } from '@cw/db';
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

let modelsOf!: (data: AuthData) => AuthModels;

/** Publisher accounts and credentials: what other domains may read and change of them. */
export class AuthData {
  readonly #m: AuthModels;
  static {
    modelsOf = (data) => data.#m;
  }
  constructor(models: AuthModels) {
    this.#m = models;
  }

  /** Creates accounts through the schema (defaults and validation), in one write. */
  async createPublishers(accounts: PublisherInput[]): Promise<void> {
    await this.#m.Publisher.insertMany(accounts);
  }

  publisherById(id: string): Promise<PublisherRow | null> {
    return this.#m.Publisher.findById(id).lean<PublisherRow>();
  }

  async publisherExists(id: string): Promise<boolean> {
    return !!(await this.#m.Publisher.exists({ _id: id }));
  }

  /** Sets fields of an account; false when it does not exist. */
  async updatePublisher(id: string, fields: Partial<PublisherDoc>): Promise<boolean> {
    const r = await this.#m.Publisher.updateOne({ _id: id }, { $set: { ...fields, updated_at: new Date() } });
    return r.matchedCount === 1;
  }

  /** A credential by its id (a feed URL names the key that signed it); null for a malformed id. */
  credentialById(id: string): Promise<CredentialRow | null> {
    if (!/^[a-f0-9]{24}$/.test(id)) return Promise.resolve(null);
    return this.#m.Credential.findById(id).lean<CredentialRow>();
  }
}

/** The auth lib's own models (not exported from the lib). */
export const authModels = (data: AuthData): AuthModels => modelsOf(data);

export const authDomain = defineDomain(
  'auth',
  { Publisher: [publisherSchema, 'publishers'], Credential: [credentialSchema, 'credentials'] },
  (m: AuthModels) => new AuthData(m),
);
