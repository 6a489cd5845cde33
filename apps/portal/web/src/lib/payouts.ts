/** Money out in words: payout methods, statuses and the reasons a payout waits (never colour alone). */
import type { PillTone } from '../components/feedback';
import type { MaskedMethod } from '../api/payouts';

export const METHOD_TYPES = {
  iban: 'Bank account (IBAN and BIC)',
  ach: 'US bank account (ACH)',
  paypal: 'PayPal',
} as const;

/** "Bank account ending in 3000", "PayPal m•••@example.com". */
export function methodInWords(m: MaskedMethod | null | undefined): string {
  if (!m) return 'None yet';
  if (m.type === 'paypal') return `PayPal ${m.last4}`;
  return `${m.type === 'ach' ? 'US bank account' : 'Bank account'} ending in ${m.last4}`;
}

const HOLDS: Record<string, string> = {
  method_changed: 'the payout method changed recently (a safety hold)',
  shared_account: 'the bank or PayPal account is also another publisher’s',
  method_failed: 'the last payout to this method failed',
  account_inactive: 'the account is not active',
  tax_profile_incomplete: 'the tax details are incomplete',
};
export const holdInWords = (reason: string): string => HOLDS[reason] ?? reason.replace(/_/g, ' ');

const STATUSES: Record<string, { label: string; tone: PillTone }> = {
  pending: { label: 'Waiting for the network', tone: 'info' },
  held: { label: 'Held', tone: 'warning' },
  in_transit: { label: 'On its way', tone: 'info' },
  paid: { label: 'Paid', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  canceled: { label: 'Canceled', tone: 'neutral' },
};
export const payoutStatus = (s: string, held = false) => (held && s === 'pending' ? STATUSES.held! : (STATUSES[s] ?? { label: s, tone: 'neutral' }));

const RUN_STATUSES: Record<string, { label: string; tone: PillTone }> = {
  draft: { label: 'Waiting for approval', tone: 'warning' },
  approving: { label: 'Being approved', tone: 'info' },
  approved: { label: 'Approved, not settled', tone: 'info' },
  settled: { label: 'Settled', tone: 'success' },
};
export const runStatus = (s: string) => RUN_STATUSES[s] ?? { label: s, tone: 'neutral' as PillTone };

const RAILS: Record<string, string> = { sepa: 'SEPA transfer', paypal: 'PayPal', csv: 'Bank file (CSV)' };
export const railInWords = (rail: string): string => RAILS[rail] ?? rail;

const ENTRY_TYPES: Record<string, string> = {
  commission: 'Commission approved',
  reversal: 'Commission reversed',
  correction: 'Correction',
  payout: 'Payout',
  payout_return: 'Payout returned',
};
export const entryInWords = (type: string): string => ENTRY_TYPES[type] ?? type;
