import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { clearFields, type AchMethod } from './payout-method';
import { maskedMethod, openPayoutMethod, sealPayoutMethod } from './seal-payout-method';
import { validatePayoutMethod } from './validate-payout-method';

const base = randomBytes(32);
const keys = keyRing(base);
const rotated = keyRing(base, [{ id: 'k2', key: randomBytes(32) }]);

const iban = () => validatePayoutMethod({ type: 'iban', holder_name: 'Maria Schmidt', iban: 'DE89 3704 0044 0532 0130 00', bic: 'DEUTDEFF' });
const ach = () =>
  validatePayoutMethod({ type: 'ach', holder_name: 'Trail Notes LLC', routing_number: '021000021', account_number: '9876543210', account_type: 'savings' });
const paypal = () => validatePayoutMethod({ type: 'paypal', email: 'maria.schmidt@example.com', holder_name: 'Maria Schmidt' });

describe('a stored payout method', () => {
  it('shows only the type and the last 4 (PayPal: the first letter and the domain), with country and currency where the method has them', () => {
    expect(sealPayoutMethod(keys, iban())).toMatchObject({ type: 'iban', last4: '3000', country: 'DE' });
    expect(sealPayoutMethod(keys, ach())).toMatchObject({ type: 'ach', last4: '3210', country: 'US', currency: 'USD' });
    expect(maskedMethod(sealPayoutMethod(keys, iban()))).toEqual({ type: 'iban', last4: '3000' });
    expect(maskedMethod(sealPayoutMethod(keys, ach()))).toEqual({ type: 'ach', last4: '3210' });
    expect(maskedMethod(sealPayoutMethod(keys, paypal()))).toEqual({ type: 'paypal', last4: 'm•••@example.com' });
  });

  it('opens again, for the rails, to the very method sealed, also after the keys rotated', () => {
    const stored = sealPayoutMethod(keys, iban());
    expect(clearFields(openPayoutMethod(keys, stored))).toEqual(clearFields(iban()));
    expect(clearFields(openPayoutMethod(rotated, stored))).toEqual(clearFields(iban()));
    const sealedAfter = sealPayoutMethod(rotated, ach());
    expect(sealedAfter.sealed.kid).toBe('k2');
    expect(clearFields(openPayoutMethod(rotated, sealedAfter))).toEqual(clearFields(ach()));
    expect((openPayoutMethod(rotated, sealedAfter) as AchMethod).account_number).toBe('9876543210');
  });
});

describe('payout method fingerprints', () => {
  it('are equal for the same IBAN however it was typed, on two publishers, and before and after a key rotation', () => {
    const typed = ['DE89 3704 0044 0532 0130 00', 'de89370400440532013000', 'DE89-3704-0044-0532-0130-00'].map((i) =>
      sealPayoutMethod(keys, validatePayoutMethod({ type: 'iban', holder_name: 'Someone Else', iban: i, bic: 'DEUTDEFF' })),
    );
    expect(new Set(typed.map((s) => s.fingerprint)).size).toBe(1);
    expect(new Set(typed.map((s) => s.sealed.data)).size).toBe(3);
    expect(sealPayoutMethod(keys, iban()).fingerprint).toBe(typed[0]!.fingerprint);
    expect(sealPayoutMethod(rotated, iban()).fingerprint).toBe(typed[0]!.fingerprint);
  });

  it('are equal for a PayPal address in any case, and for the same routing and account number', () => {
    const shouted = sealPayoutMethod(keys, validatePayoutMethod({ type: 'paypal', email: 'MARIA.SCHMIDT@example.com' }));
    expect(shouted.fingerprint).toBe(sealPayoutMethod(keys, paypal()).fingerprint);
    expect(sealPayoutMethod(keys, ach()).fingerprint).toBe(sealPayoutMethod(rotated, ach()).fingerprint);
  });

  it('differ between accounts', () => {
    const other = validatePayoutMethod({ type: 'iban', holder_name: 'Maria Schmidt', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' });
    const otherAch = validatePayoutMethod({
      type: 'ach',
      holder_name: 'Trail Notes LLC',
      routing_number: '021000021',
      account_number: '9876543211',
      account_type: 'savings',
    });
    expect(sealPayoutMethod(keys, other).fingerprint).not.toBe(sealPayoutMethod(keys, iban()).fingerprint);
    expect(sealPayoutMethod(keys, otherAch).fingerprint).not.toBe(sealPayoutMethod(keys, ach()).fingerprint);
  });
});
