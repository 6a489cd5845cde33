/** A mail message and what sending it gives back (shared by the mailer and its background path). */
export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; links on lines of their own. */
  text: string;
  /** Extra headers (the notification mails' List-Unsubscribe and List-Unsubscribe-Post); transactional mail carries none. */
  headers?: Record<string, string>;
  /** Files attached (a paid payout's statement PDF), their bytes as base64 text. */
  attachments?: MailAttachment[];
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
  encoding: 'base64';
}

export interface SentMail {
  messageId: string;
  /** The file written (local folder transport only). */
  path?: string;
}
