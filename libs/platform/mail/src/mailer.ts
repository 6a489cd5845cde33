/**
 * Mail the platform sends people (verification, invitations, password resets): through nodemailer
 * to an SMTP server in production (SMTP_URL), or, on the local platform, as one `.eml` file per
 * message in a folder (MAIL_DIR, `.local/mail/`), which a person opens and the tests read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { toDisplayText } from '@cw/validation';
import { mailInBackground, type ComposeMail } from './background';

export type { MailMessage, SentMail } from './message';
import type { MailMessage, SentMail } from './message';

export interface Mailer {
  /** Sends now: the caller waits for the transport (and sees its error). */
  send(message: MailMessage): Promise<SentMail>;
  /**
   * Hands a mail to the background: the caller does not wait for it, whatever it is. `compose`
   * (which may store a link's hash first) runs after the caller's turn; a compose or a send that
   * fails is tried again (`retryDelaysMs`), then told to `onFailed`. A use case that mails one
   * kind of message or another, or none, answers in the same time either way.
   */
  later(compose: ComposeMail): void;
  /** Resolves once every mail handed to `later` went out or was given up (shutdown; tests). */
  idle(): Promise<void>;
}

export interface MailerOptions {
  from: string;
  smtpUrl?: string;
  /** The local folder; with neither it nor SMTP, messages are built and dropped (tests of other things). */
  dir?: string;
  /** Told of each message written to the folder (the local platform prints the path). */
  onWritten?: (path: string, message: MailMessage) => void;
  /** A mail of `later` whose compose or send failed: tried again after each delay, in turn (default 1 s, 5 s, 30 s, 2 min). */
  retryDelaysMs?: number[];
  /** Told of each failed attempt of a mail of `later` (never its text: it holds a one-time link); `final` when given up. */
  onFailed?: (error: Error, attempt: { subject?: string; attempt: number; final: boolean }) => void;
}

export function createMailer(opts: MailerOptions): Mailer {
  const send = sender(opts);
  const background = mailInBackground(send, { retryDelaysMs: opts.retryDelaysMs, onFailed: opts.onFailed });
  return { send, later: background.later, idle: background.idle };
}

/** The subject as a header carries it: control, line-break and bidirectional characters dropped (names from stored rows end up there). */
const subjectOf = (m: MailMessage) => toDisplayText(m.subject);

/** Extra headers as nodemailer sets them, each value without line breaks (no header can be smuggled in). */
const headersOf = (m: MailMessage) =>
  m.headers ? { headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k.replace(/[^A-Za-z0-9-]/g, ''), v.replace(/[\r\n]+/g, ' ')])) } : {};

/** Attachments as nodemailer takes them (never a path or URL: only the bytes given). */
const attachmentsOf = (m: MailMessage) =>
  m.attachments?.length
    ? { attachments: m.attachments.map((a) => ({ filename: toDisplayText(a.filename), contentType: a.contentType, content: a.content, encoding: a.encoding })) }
    : {};

function sender(opts: MailerOptions): Mailer['send'] {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return async (m) => {
      const info = await transport.sendMail({ from: opts.from, to: m.to, subject: subjectOf(m), text: m.text, ...headersOf(m), ...attachmentsOf(m) });
      return { messageId: info.messageId };
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let seq = 0;
  return async (m) => {
    const info = await transport.sendMail({ from: opts.from, to: m.to, subject: subjectOf(m), text: m.text, ...headersOf(m), ...attachmentsOf(m) });
    if (!opts.dir) return { messageId: info.messageId };
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    // Sortable by time, unique within the process; the recipient in the name so a person finds theirs.
    const safeTo = m.to.replace(/[^A-Za-z0-9@._+-]/g, '_').slice(0, 80);
    const path = join(opts.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++seq}-${safeTo}.eml`);
    writeFileSync(path, info.message as Buffer, { mode: 0o600 });
    opts.onWritten?.(path, { ...m, subject: subjectOf(m) });
    return { messageId: info.messageId, path };
  };
}
