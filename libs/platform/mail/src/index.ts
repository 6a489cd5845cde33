export { createMailer } from './mailer';
export type { Mailer, MailerOptions, MailMessage, SentMail } from './mailer';
