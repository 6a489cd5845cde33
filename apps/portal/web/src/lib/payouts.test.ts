import { describe, expect, it } from 'vitest';
import { entryInWords, holdInWords, methodInWords, payoutStatus, railInWords, runStatus } from './payouts';

describe('money out in words', () => {
  it('names a payout method by its kind and last digits, never in full', () => {
    expect(methodInWords({ type: 'iban', last4: '3000' })).toBe('Bank account ending in 3000');
    expect(methodInWords({ type: 'ach', last4: '6789' })).toBe('US bank account ending in 6789');
    expect(methodInWords({ type: 'paypal', last4: 'm•••@example.com' })).toBe('PayPal m•••@example.com');
    expect(methodInWords(null)).toBe('None yet');
  });

  it('says why a payout waits in words, and an unknown reason readably', () => {
    expect(holdInWords('method_changed')).toBe('the payout method changed recently (a safety hold)');
    expect(holdInWords('tax_profile_incomplete')).toBe('the tax details are incomplete');
    expect(holdInWords('new_reason_here')).toBe('new reason here');
  });

  it('shows a pending payout that is held as held, with a tone beside the words', () => {
    expect(payoutStatus('pending')).toEqual({ label: 'Waiting for the network', tone: 'info' });
    expect(payoutStatus('pending', true)).toEqual({ label: 'Held', tone: 'warning' });
    expect(payoutStatus('paid', true)).toEqual({ label: 'Paid', tone: 'success' });
    expect(payoutStatus('failed')).toEqual({ label: 'Failed', tone: 'danger' });
    expect(payoutStatus('something_else')).toEqual({ label: 'something_else', tone: 'neutral' });
  });

  it('names runs, rails and ledger entries', () => {
    expect(runStatus('draft')).toEqual({ label: 'Waiting for approval', tone: 'warning' });
    expect(runStatus('settled')).toEqual({ label: 'Settled', tone: 'success' });
    expect(railInWords('sepa')).toBe('SEPA transfer');
    expect(railInWords('wire')).toBe('wire');
    expect(entryInWords('payout_return')).toBe('Payout returned');
    expect(entryInWords('commission')).toBe('Commission approved');
  });
});
