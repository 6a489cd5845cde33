import { describe, expect, it } from 'vitest';
import type { SessionAccount } from './api/types';
import { pickAccount } from './session';

const account = (account_id: string) => ({ account_id, name: `Account ${account_id}`, role: 'owner', status: 'active' }) as SessionAccount;

describe('the account a signed-in person works in', () => {
  const accounts = [account('a1'), account('a2')];

  it('is the one chosen before, while the person still belongs to it', () => {
    expect(pickAccount(accounts, 'a2')?.account_id).toBe('a2');
  });

  it('is their first account when the one remembered is gone or none was chosen', () => {
    expect(pickAccount(accounts, 'a9')?.account_id).toBe('a1');
    expect(pickAccount(accounts, null)?.account_id).toBe('a1');
  });

  it('is none for a person without an account (a sign-in made to claim an application)', () => {
    expect(pickAccount([], 'a1')).toBeNull();
  });
});
