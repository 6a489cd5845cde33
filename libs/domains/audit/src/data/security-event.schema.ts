import { Schema, type InferSchemaType } from 'mongoose';

export const SECURITY_EVENT_TYPES = [
  'signin',
  'signin_failed',
  'signout',
  'password_changed',
  'password_reset',
  'sessions_ended',
  'credential_issued',
  'credential_rotated',
  'credential_revoked',
  'postback_changed',
  'postback_secret_rotated',
  'member_invited',
  'member_joined',
  'member_role_changed',
  'member_removed',
  'invitation_revoked',
  'account_changed',
  'account_claimed',
  'app_granted',
  'app_revoked',
  'payout_settings_changed',
  'payout_requested',
  'tax_profile_changed',
  // Operators' acts (the actor is an operator: `actor.operator_role` is set).
  'operator_token_issued',
  'publisher_created',
  'publisher_status_changed',
  'publisher_reviewed',
  'publisher_comparison_site_changed',
  'publisher_trending_changed',
  'conversion_status_changed',
  'conversions_backfilled',
  'events_pruned',
  'inquiry_decided',
  'code_reviewed',
  'merchant_created',
  'program_created',
  'program_status_changed',
  'assignment_changed',
  'offer_created',
  'offer_ended',
  'trending_plan_created',
  'trending_plan_released',
  'ledger_entry_booked',
  'postback_redelivered',
  'postback_secrets_resealed',
  'postback_deliveries_backfilled',
  'application_reviewed',
  'oauth_app_disabled',
  'oauth_app_enabled',
  'operator_role_granted',
  'operator_role_revoked',
  'fx_rates_imported',
  'payout_run_created',
  'payout_run_approved',
  'payout_run_exported',
  'payout_run_settled',
  'payout_released',
  'payout_canceled',
  'tax_year_end_exported',
  'statement_reissued',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/**
 * One security-relevant act on an account, or an operator's act on the network, append-only: who (a person's e-mail, or a credential's
 * display prefix), what (never a secret), when, and from where (the address only as a hash).
 */
export const securityEventSchema = new Schema(
  {
    _id: { type: String, required: true }, // sev_<time-ordered>
    /** The account acted on; absent for an operator's act on the network as a whole (resealing secrets, backfills). */
    account_id: { type: String },
    type: { type: String, enum: SECURITY_EVENT_TYPES, required: true },
    actor: {
      user_id: { type: String },
      email: { type: String },
      /** A credential acting (an API call): its display prefix. */
      credential_prefix: { type: String },
      /** Set when the actor is one of the network's operators (support or admin); `email` names them. */
      operator_role: { type: String, enum: ['support', 'admin'] },
    },
    /** What changed, in words and ids; no secret ever. */
    detail: { type: Schema.Types.Mixed, default: {} },
    /** The client's network (/24, /48) as a keyed hash, `net_…` (client-network.ts), for people to recognise; rows of older versions hold the prefix itself, shown hashed. */
    address: { type: String },
    address_hash: { type: String },
    user_agent: { type: String },
    request_id: { type: String },
    at: { type: Date, required: true },
  },
  { versionKey: false },
);
// An account's log, newest first, paged by _id (time-ordered): page 1 reads limit + 1 entries.
securityEventSchema.index({ account_id: 1, _id: -1 });
// The operators' audit log (audit:list): everything newest first, or by actor, or by act.
securityEventSchema.index({ 'actor.email': 1, _id: -1 });
securityEventSchema.index({ type: 1, _id: -1 });
// Kept two years, then the TTL monitor removes it.
securityEventSchema.index({ at: 1 }, { expireAfterSeconds: 2 * 366 * 86_400 });

export type SecurityEventDoc = InferSchemaType<typeof securityEventSchema>;
