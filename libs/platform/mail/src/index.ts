export { createMailer } from './mailer';
export { DEFAULT_RETRY_DELAYS_MS } from './background';
export type { ComposeMail } from './background';
export type { Mailer, MailerOptions, MailMessage, SentMail } from './mailer';
export type { MailAttachment } from './message';
