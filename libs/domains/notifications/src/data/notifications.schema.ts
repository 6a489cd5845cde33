import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A person's notification choices (`/settings/notifications`, the unsubscribe links): one row per
 * person (`_id` = the person's id), `choices` holding only the kinds they chose (on or off); a kind
 * without a choice takes its default (../kinds.ts). `timezone`: the person's own IANA zone (the
 * weekly summary's week and send hour), null or absent for none (then each account's zone decides).
 */
export const notificationPreferenceSchema = new Schema(
  {
    _id: { type: String, required: true }, // usr_…
    choices: { type: Schema.Types.Mixed, default: {} },
    timezone: { type: String, default: null },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);
export type NotificationPreferenceDoc = InferSchemaType<typeof notificationPreferenceSchema>;

/**
 * A notice that must go out at most once (the weekly summary of a person and week, a failing
 * postback endpoint once a day, a reversal after payout once per sale): its key claimed before its
 * mail job is queued. Removed by the TTL monitor once a repeat can no longer happen.
 */
export const notificationSendSchema = new Schema(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false },
);
notificationSendSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });
export type NotificationSendDoc = InferSchemaType<typeof notificationSendSchema>;
