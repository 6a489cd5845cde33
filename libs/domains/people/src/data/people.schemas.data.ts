import { Schema, type InferSchemaType } from 'mongoose';
import { MEMBER_ROLES, OPERATOR_ROLES } from '@cw/auth';

/** A person who signs in to the portal: e-mail (lowercase, unique) and a memory-hard password hash. */
export const userSchema = new Schema(
  {
    _id: { type: String, required: true }, // usr_…
    email: { type: String, required: true, unique: true },
    name: { type: String },
    /** scrypt$N$r$p$salt$hash (passwords.ts); never logged, never returned. */
    password_hash: { type: String, required: true },
    email_verified_at: { type: Date },
    password_changed_at: { type: Date },
    /** One of the network's operators (the portal's operator area): support reads, admin acts. Set and cleared by operator:grant / operator:revoke-role. */
    operator_role: { type: String, enum: OPERATOR_ROLES },
    created_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
export type UserDoc = InferSchemaType<typeof userSchema>;

/** A person's role in a publisher account (id: `<account>:<user>`, so one membership per pair). */
export const accountMemberSchema = new Schema(
  {
    _id: { type: String, required: true },
    account_id: { type: String, required: true },
    user_id: { type: String, required: true },
    role: { type: String, enum: MEMBER_ROLES, required: true },
    joined_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
accountMemberSchema.index({ user_id: 1 });
accountMemberSchema.index({ account_id: 1, joined_at: 1 });
export type AccountMemberDoc = InferSchemaType<typeof accountMemberSchema>;

/**
 * A signed-in session, server-side: the cookie's value is never stored, only its SHA-256 (the _id).
 * `ends_at` is the earlier of the idle and the absolute end; the TTL monitor removes it then.
 */
export const sessionSchema = new Schema(
  {
    _id: { type: String, required: true }, // SHA-256 hex of the cookie value
    /** A public id for listing and ending it (never the cookie). */
    public_id: { type: String, required: true },
    user_id: { type: String, required: true },
    csrf_token: { type: String, required: true },
    created_at: { type: Date, required: true },
    last_seen_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
    ends_at: { type: Date, required: true },
    reauthenticated_until: { type: Date },
    user_agent: { type: String },
    /** The client's network as a keyed hash, `net_…` (@cw/audit's clientNetwork); never the address or its prefix. */
    address: { type: String },
    address_hash: { type: String },
  },
  { versionKey: false },
);
sessionSchema.index({ user_id: 1, created_at: -1 });
sessionSchema.index({ ends_at: 1 }, { expireAfterSeconds: 0 });
export type SessionDoc = InferSchemaType<typeof sessionSchema>;

export const MAIL_TOKEN_KINDS = ['verify_email', 'reset_password', 'invitation', 'unlock_signin'] as const;
export type MailTokenKind = (typeof MAIL_TOKEN_KINDS)[number];

/**
 * A one-time link sent by mail (verification, password reset, invitation): only its SHA-256 is
 * stored (the _id); used once, then removed; the TTL monitor removes what expires unused.
 */
export const mailTokenSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** A public id (invitations are listed and revoked by it). */
    public_id: { type: String, required: true },
    kind: { type: String, enum: MAIL_TOKEN_KINDS, required: true },
    email: { type: String, required: true },
    user_id: { type: String },
    account_id: { type: String },
    role: { type: String, enum: MEMBER_ROLES },
    invited_by: { type: String },
    created_at: { type: Date, default: Date.now },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
mailTokenSchema.index({ account_id: 1, kind: 1, created_at: -1 }, { partialFilterExpression: { kind: 'invitation' } });
mailTokenSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });
export type MailTokenDoc = InferSchemaType<typeof mailTokenSchema>;
