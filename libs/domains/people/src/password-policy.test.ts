import { describe, expect, it } from 'vitest';
import { commonPasswords, PASSWORD_PROBLEMS, passwordProblem } from './password-policy';

describe('password policy', () => {
  it('loads the common-password list once', async () => {
    const list = await commonPasswords();
    expect(list.size).toBeGreaterThan(40_000);
    expect(list.has('password1234')).toBe(true);
    expect(await commonPasswords()).toBe(list);
  });

  it('refuses common passwords, also with digits or symbols around them or look-alike letters', async () => {
    for (const p of ['password1234', 'PASSWORD1234', 'qwertyuiop123', 'P@ssw0rd2024!', 'Dragon!!19871987', '1qaz2wsx3edc']) {
      expect(await passwordProblem(p), p).toBe(PASSWORD_PROBLEMS.common);
    }
  });

  it('refuses repeated and sequential patterns', async () => {
    for (const p of ['aaaaaaaaaaaa', 'abcabcabcabc', '121212121212', 'abcdefghijklm', '9876543210987', 'asdfghjklzxcv']) {
      expect(await passwordProblem(p), p).toBe(PASSWORD_PROBLEMS.pattern);
    }
  });

  it('refuses the e-mail address, its name part, the person’s name and the account’s name inside a password', async () => {
    const ctx = { email: 'Maya.Schmidt@trail-notes.example', name: 'Maya Schmidt', accountNames: ['Trail Notes'] };
    expect(await passwordProblem('maya.schmidt@trail-notes.example', ctx)).toBe(PASSWORD_PROBLEMS.email);
    expect(await passwordProblem('my own mayaschmidt secret', ctx)).toBe(PASSWORD_PROBLEMS.email);
    expect(await passwordProblem('Schmidt is a long surname', { ...ctx, email: 'ms@example.org' })).toBe(PASSWORD_PROBLEMS.name);
    expect(await passwordProblem('the TRAIL-NOTES blog 2024', ctx)).toBe(PASSWORD_PROBLEMS.account);
  });

  it('accepts long passphrases and short context words that would refuse too much', async () => {
    const ctx = { email: 'sam@example.org', name: 'Sam', accountNames: ['Go'] };
    for (const p of ['a long enough passphrase', 'correct horse battery staple', 'sams own passphrase', 'wombat-lantern-quietly-87']) {
      expect(await passwordProblem(p, ctx), p).toBeNull();
    }
  });
});
