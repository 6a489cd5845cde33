/**
 * Mail the platform sends people (verification, invitations, password resets): through nodemailer
 * to an SMTP server in production (SMTP_URL), or, on the local platform, as one `.eml` file per
 * message in a folder (MAIL_DIR, `.local/mail/`), which a person opens and the tests read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

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

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
}

export interface MailerOptions {
  from: string;
  smtpUrl?: string;
  /** The local folder; with neither it nor SMTP, messages are built and dropped (tests of other things). */
  dir?: string;
  /** Told of each message written to the folder (the local platform prints the path). */
  onWritten?: (path: string, message: MailMessage) => void;
}

export function createMailer(opts: MailerOptions): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(m) {
        const info = await transport.sendMail({ from: opts.from, to: m.to, subject: m.subject, text: m.text });
        return { messageId: info.messageId };
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let seq = 0;
  return {
    async send(m) {
      const info = await transport.sendMail({ from: opts.from, to: m.to, subject: m.subject, text: m.text });
      if (!opts.dir) return { messageId: info.messageId };
      mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
      // Sortable by time, unique within the process; the recipient in the name so a person finds theirs.
      const safeTo = m.to.replace(/[^A-Za-z0-9@._+-]/g, '_').slice(0, 80);
      const path = join(opts.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++seq}-${safeTo}.eml`);
      writeFileSync(path, info.message as Buffer, { mode: 0o600 });
      opts.onWritten?.(path, m);
      return { messageId: info.messageId, path };
    },
  };
}
