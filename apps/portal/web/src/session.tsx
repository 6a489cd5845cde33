/** The signed-in person and the account they are working in (kept in localStorage, chosen in the sidebar). */
import { createContext, useContext } from 'react';
import type { Role, Session, SessionAccount } from './api/types';

const ACCOUNT_KEY = 'portal.account';

export function storedAccountId(): string | null {
  try {
    return localStorage.getItem(ACCOUNT_KEY);
  } catch {
    return null;
  }
}

export function storeAccountId(id: string): void {
  try {
    localStorage.setItem(ACCOUNT_KEY, id);
  } catch {
    // Storage refused: the choice lasts for this page only.
  }
}

/** The remembered account if the person still belongs to it, else their first. */
export function pickAccount(accounts: SessionAccount[], wanted: string | null): SessionAccount | null {
  return accounts.find((a) => a.account_id === wanted) ?? accounts[0] ?? null;
}

export interface SessionState {
  session: Session;
  account: SessionAccount | null;
  setAccountId(id: string): void;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSessionState(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSessionState outside the signed-in layout');
  return s;
}

/** The current account (account pages render only when there is one). */
export function useAccount(): SessionAccount & { role: Role } {
  const { account } = useSessionState();
  if (!account) throw new Error('useAccount without an account');
  return account;
}
