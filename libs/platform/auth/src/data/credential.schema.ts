import { Schema, type InferSchemaType } from 'mongoose';

export const API_KEY_KINDS = ['live', 'demo', 'test', 'sandbox', 'read_only'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/** Operators' roles: `support` reads, `admin` acts (and reads). */
export const OPERATOR_ROLES = ['support', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const CREDENTIAL_TYPES = ['api_key', 'reporting_token', 'offers_credential', 'portal_token', 'merchant_token', 'operator_token'] as const;
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
    /** An operator token's operator (e-mail) and role (support reads, admin acts); no account. */
    operator_email: { type: String },
    operator_role: { type: String, enum: OPERATOR_ROLES },
    hash: { type: String, required: true, unique: true },
    prefix: { type: String, required: true },
    status: { type: String, enum: ['active', 'revoked'], default: 'active', required: true },
    label: { type: String },
    /** Who issued it: a person's e-mail (the portal), `operator` (the operator CLI), `platform` (sign-up, seed). */
    created_by: { type: String },
    revoked_at: { type: Date },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);

export type CredentialDoc = InferSchemaType<typeof credentialSchema>;

/**
 * When a credential was last used, to a minute: kept apart from the credential, whose every change
 * bumps the account's access stamp (a use must not empty the caches that make it cheap).
 */
export const credentialUseSchema = new Schema({ _id: { type: String, required: true }, last_used_at: { type: Date, required: true } }, { versionKey: false });
export type CredentialUseDoc = InferSchemaType<typeof credentialUseSchema>;

/** The roles of an account's people: what each may do is the use cases' policies (`Policy.roles`). */
export const MEMBER_ROLES = ['owner', 'developer', 'analyst'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
