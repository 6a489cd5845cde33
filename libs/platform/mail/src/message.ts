/** A mail message and what sending it gives back (shared by the mailer and its background path). */
export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; links on lines of their own. */
  text: string;
}

export interface SentMail {
  messageId: string;
  /** The file written (local folder transport only). */
  path?: string;
}
