import { Schema, type InferSchemaType } from 'mongoose';

export const API_KEY_KINDS = ['live', 'demo', 'test', 'sandbox', 'read_only'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];
export const CREDENTIAL_TYPES = ['api_key', 'reporting_token', 'offers_credential', 'portal_token', 'merchant_token'] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** Every credential kind; only the SHA-256 of the secret is stored, plus a short display prefix. */
export const credentialSchema = new Schema(
  {
    type: { type: String, enum: CREDENTIAL_TYPES, required: true },
    key_kind: { type: String, enum: API_KEY_KINDS },
    /** The owning publisher account (every kind but merchant tokens). */
    publisher_id: { type: String, index: true },
    /** The owning merchant (merchant tokens, which report and change conversions). */
    merchant_id: { type: Number },
    hash: { type: String, required: true, unique: true },
    prefix: { type: String, required: true },
    status: { type: String, enum: ['active', 'revoked'], default: 'active', required: true },
    label: { type: String },
    revoked_at: { type: Date },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);

export type CredentialDoc = InferSchemaType<typeof credentialSchema>;
