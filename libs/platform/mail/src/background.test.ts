import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMailer } from './mailer';

const dirs: string[] = [];
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'mail-bg-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('mail handed to the background', () => {
  it('returns at once, composes after the caller’s turn, and idle() waits until the mail is written', async () => {
    const dir = folder();
    let composed = false;
    const mailer = createMailer({ from: 'portal@network.test', dir });
    mailer.later(() => {
      composed = true;
      return { to: 'ada@example.org', subject: 'Hello', text: 'Hi' };
    });
    expect(composed).toBe(false);
    await mailer.idle();
    expect(composed).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('tries a failed send again with the same message (composed once), and tells each failure without the text', async () => {
    const root = folder();
    const dir = join(root, 'out');
    writeFileSync(dir, 'a file where the folder goes'); // the transport fails, as an SMTP server that is down
    const failures: Array<{ subject?: string; attempt: number; final: boolean; error: string }> = [];
    let compositions = 0;
    const mailer = createMailer({
      from: 'portal@network.test',
      dir,
      retryDelaysMs: [1, 1, 50],
      onFailed: (e, a) => {
        failures.push({ ...a, error: e.message });
        // Back after the second failure.
        if (a.attempt === 2) rmSync(dir);
      },
    });
    mailer.later(() => {
      compositions++;
      return { to: 'ada@example.org', subject: 'Reset your password', text: 'https://portal.test/reset-password?token=secret' };
    });
    await mailer.idle();
    expect(compositions).toBe(1);
    expect(failures.map((f) => [f.attempt, f.final, f.subject])).toEqual([
      [1, false, 'Reset your password'],
      [2, false, 'Reset your password'],
    ]);
    expect(failures.every((f) => !f.error.includes('secret'))).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('gives a mail up after its last try, says so, and still settles', async () => {
    const root = folder();
    const dir = join(root, 'out');
    writeFileSync(dir, 'never a folder');
    const finals: boolean[] = [];
    const mailer = createMailer({ from: 'portal@network.test', dir, retryDelaysMs: [1], onFailed: (_e, a) => finals.push(a.final) });
    mailer.later(() => ({ to: 'ada@example.org', subject: 'Hello', text: 'Hi' }));
    await mailer.idle();
    expect(finals).toEqual([false, true]);
  });

  it('strips control, line-break and bidirectional characters from the subject header', async () => {
    const dir = folder();
    const mailer = createMailer({ from: 'portal@network.test', dir });
    await mailer.send({ to: 'ada@example.org', subject: 'Trail\u0000head \u202eReviews\r\nBcc: evil@example.org', text: 'Hi' });
    const raw = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
    expect(raw).toMatch(/^Subject: Trailhead ReviewsBcc: evil@example.org$/m);
    expect(raw).not.toMatch(/^Bcc:/m);
  });
});
