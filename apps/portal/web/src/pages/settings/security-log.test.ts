import { describe, expect, it } from 'vitest';
import type { SecurityEvent } from '../../api/types';
import { addressOf, detailText } from './security-log';

/** An event with the members read here (the rest of the row plays no part). */
const event = (e: Pick<SecurityEvent, 'address' | 'detail'>) => e as SecurityEvent;

describe('a security log row', () => {
  it('shows the address the event came from, or the one its detail names', () => {
    expect(addressOf(event({ address: '203.0.113.7', detail: { address: '198.51.100.1' } }))).toBe('203.0.113.7');
    expect(addressOf(event({ address: null, detail: { address: '198.51.100.1', reason: 'wrong_password' } }))).toBe('198.51.100.1');
    expect(addressOf(event({ address: null, detail: {} }))).toBeNull();
  });

  it('shows the detail in words, the address left to its column and nested members left out', () => {
    expect(detailText({ reason: 'wrong_password', failed_attempts: 3, address: '198.51.100.1', client: { ua: 'x' } })).toBe(
      'Reason: wrong_password · Failed attempts: 3',
    );
    expect(detailText({ address: '198.51.100.1' })).toBeNull();
    expect(detailText('Signed in with a passkey')).toBe('Signed in with a passkey');
    expect(detailText(null)).toBeNull();
    expect(detailText('')).toBeNull();
  });
});
