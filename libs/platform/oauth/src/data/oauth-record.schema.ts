import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One record of the OAuth authorization server (oidc-provider's models: Grant, Session,
 * AuthorizationCode, RefreshToken, Client, Interaction, ...), all in one collection. `_id` is
 * `<Model>:<id>`; `payload` is what the provider stored, untouched; the other fields are copies
 * of what the adapter looks records up by (a session's uid, a grant's id, a device user code), and
 * what this platform adds to a grant (the publisher account it acts for, when it was last used).
 */
export const oauthRecordSchema = new Schema(
  {
    _id: { type: String, required: true }, // <Model>:<id>
    model: { type: String, required: true },
    payload: { type: Schema.Types.Mixed, required: true },
    /** Absent: kept until removed (registered clients). */
    expires_at: { type: Date },
    /** The grant a token, code or the grant itself belongs to (revocation removes them all). */
    grant_id: { type: String },
    /** A session's uid. */
    uid: { type: String },
    /** A device code's user code (the device flow is off; kept for the adapter's interface). */
    user_code: { type: String },
    /** When a code or refresh token was used; a later find returns it as `consumed`. */
    consumed: { type: Date },
    /** On a Grant: the publisher account it acts for (chosen at consent; never changes once set). */
    account_id: { type: String },
    /** On a Grant: when a token of it was last used (Settings, Apps), to the minute. */
    last_used_at: { type: Date },
    /** On a Grant: the app it is for (an operator disabling the app revokes its grants). */
    client_id: { type: String },
    /** On a Client: when an operator disabled it (the provider no longer finds it). */
    disabled_at: { type: Date },
  },
  { versionKey: false, minimize: false },
);
// Removed by the TTL monitor when expired (the provider checks `exp` itself, so the monitor's lag is harmless).
oauthRecordSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });
// revokeByGrantId: every record of a grant.
oauthRecordSchema.index({ grant_id: 1 }, { sparse: true });
// findByUid (sessions).
oauthRecordSchema.index({ uid: 1 }, { sparse: true });
// findByUserCode (device codes).
oauthRecordSchema.index({ user_code: 1 }, { sparse: true });
// Settings, Apps: an account's grants.
oauthRecordSchema.index({ account_id: 1 }, { sparse: true });
// Disabling an app: its grants.
oauthRecordSchema.index({ client_id: 1 }, { sparse: true });

export type OAuthRecordDoc = InferSchemaType<typeof oauthRecordSchema>;
