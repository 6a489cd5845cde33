/**
 * Mail handed off by its caller: composed and sent after the caller's turn, so an answer never
 * waits on the transport (nor on storing a link's hash); a compose or a send that fails is tried
 * again after each delay in turn, then given up and told. `idle()` waits for every mail handed off
 * (a service awaits it when it stops, tests before they read the mail folder). The queue is the
 * process's memory: a mail still queued when the process is killed (not stopped) is lost, and its
 * person asks again (every link can be asked for again).
 */
import type { MailMessage, SentMail } from './message';

/** Builds the message when its turn comes (null: nothing to send after all). */
export type ComposeMail = () => Promise<MailMessage | null> | MailMessage | null;

export const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];

export interface BackgroundOptions {
  retryDelaysMs?: number[];
  onFailed?: (error: Error, attempt: { subject?: string; attempt: number; final: boolean }) => void;
}

export function mailInBackground(send: (m: MailMessage) => Promise<SentMail>, opts: BackgroundOptions = {}) {
  const delays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  let pending = 0;
  let waiters: Array<() => void> = [];

  const settled = () => {
    if (--pending > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };

  const told = (error: unknown, attempt: { subject?: string; attempt: number; final: boolean }) => {
    try {
      opts.onFailed?.(error instanceof Error ? error : new Error(String(error)), attempt);
    } catch {
      // A failing listener stops nothing.
    }
  };

  async function deliver(compose: ComposeMail): Promise<void> {
    let message: MailMessage | null = null;
    for (let attempt = 1; ; attempt++) {
      try {
        // Composed once: a retry sends the same message (the same link) again.
        message ??= await compose();
        if (message) await send(message);
        return;
      } catch (e) {
        const final = attempt > delays.length;
        told(e, { subject: message?.subject, attempt, final });
        if (final) return;
        await new Promise((resolve) => setTimeout(resolve, delays[attempt - 1]));
      }
    }
  }

  return {
    later(compose: ComposeMail): void {
      pending++;
      setImmediate(() => void deliver(compose).finally(settled));
    },
    idle(): Promise<void> {
      return pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
