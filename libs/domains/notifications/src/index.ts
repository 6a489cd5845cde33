/** Notification mail: people's choices, the unsubscribe links, the mail job, the weekly summary (decision record 0056). */
export { AUDIENCE, defaultChoice, isNotificationKind, KIND_LABELS, NOTIFICATION_KINDS } from './kinds';
export type { NotificationKind } from './kinds';
export { MAIL_JOB, NotificationsData, notificationsDomain } from './data/notifications.data';
export type { Choices, MailJobData, NotificationsModels } from './data/notifications.data';
export type { NotificationPreferenceDoc, NotificationSendDoc } from './data/notifications.schema';
export type { NotificationsDeps, NotifyDeps } from './deps';
export {
  enabledFor,
  NOTIFICATION_CHOICES_INPUT,
  NOTIFICATION_SETTINGS_SCHEMA,
  notificationSettings,
  summaryZone,
  updateNotificationSettings,
} from './preferences.service';
export type { NotificationSetting, NotificationSettings } from './preferences.service';
export { enabledMembers, notifier, notifyPeople } from './notify';
export type { InquiryDecidedNotice, LinksUnhealthyNotice, Notice, PostbackFailingNotice, ReversalNotice, WeeklySummaryNotice } from './notify';
export { readUnsubscribeToken, unsubscribeToken } from './unsubscribe-token';
export { UNSUBSCRIBE_INPUT, unsubscribe, unsubscribeInfo } from './unsubscribe.service';
export { composeNotice, money, sumDecimals, unsubscribeLinks, weeklyNumbers, withUnsubscribe } from './compose';
export { NOTIFICATION_MAIL_RETRIES, sendNotificationMail } from './mail-job';
export type { MailJobOutcome } from './mail-job';
export { queueWeeklySummaries, WEEKLY_SEND_HOUR, weekDue } from './weekly-summary';
export type { WeeklyPassResult } from './weekly-summary';
export { noticeBreakerOpen, noticeInquiryDecided, noticeReversal } from './hooks';
export type { DecidedInquiry } from './hooks';
