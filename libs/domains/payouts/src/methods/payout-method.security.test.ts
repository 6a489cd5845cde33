import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { createLogger } from '@cw/logging';
import type { IbanMethod } from './payout-method';
import { openPayoutMethod, sealPayoutMethod } from './seal-payout-method';
import { validatePayoutMethod } from './validate-payout-method';

const keys = keyRing(randomBytes(32));

const iban = () => validatePayoutMethod({ type: 'iban', holder_name: 'Maria Schmidt', iban: 'DE89 3704 0044 0532 0130 00', bic: 'DEUTDEFF' });
const ach = () =>
  validatePayoutMethod({ type: 'ach', holder_name: 'Trail Notes LLC', routing_number: '021000021', account_number: '9876543210', account_type: 'savings' });
const paypal = () => validatePayoutMethod({ type: 'paypal', email: 'maria.schmidt@example.com', holder_name: 'Maria Schmidt' });

/** Every part of an account that must never be readable: the numbers but for their last 4, the address, the name. */
const SECRETS = ['370400440532', '0440532', 'DE89370400440532013000', '021000021', '987654', 'maria.schmidt', 'Maria Schmidt', 'Trail Notes'];

describe('payout methods: what a database reader or a log reader sees', () => {
  it('a stored method holds no account number, routing number, address or name, only the last 4 beside the sealed box', () => {
    const fields = { iban: ['country', 'fingerprint', 'last4', 'sealed', 'type'], ach: ['country', 'currency', 'fingerprint', 'last4', 'sealed', 'type'] };
    for (const method of [iban(), ach(), paypal()]) {
      const stored = sealPayoutMethod(keys, method);
      const json = JSON.stringify(stored);
      for (const secret of SECRETS) expect(json, `${method.type}: ${secret}`).not.toContain(secret);
      expect(Object.keys(stored).sort()).toEqual(method.type === 'paypal' ? ['fingerprint', 'last4', 'sealed', 'type'] : fields[method.type]);
    }
  });

  it('the fingerprint is keyed: not the plain SHA-256 of the IBAN that anyone could recompute, and another platform gets another', () => {
    const fingerprint = sealPayoutMethod(keys, iban()).fingerprint;
    for (const guess of ['DE89370400440532013000', 'iban:DE89370400440532013000'])
      expect(fingerprint).not.toBe(createHash('sha256').update(guess).digest('hex'));
    expect(sealPayoutMethod(keyRing(randomBytes(32)), iban()).fingerprint).not.toBe(fingerprint);
  });

  it('a seal altered, moved onto another stored method, or opened with another ring is refused', () => {
    const stored = sealPayoutMethod(keys, iban());
    const data = Buffer.from(stored.sealed.data, 'base64');
    data[0]! ^= 1;
    expect(() => openPayoutMethod(keys, { ...stored, sealed: { ...stored.sealed, data: data.toString('base64') } })).toThrow();
    const other = sealPayoutMethod(keys, validatePayoutMethod({ type: 'iban', holder_name: 'Eve', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' }));
    expect(() => openPayoutMethod(keys, { ...other, sealed: stored.sealed })).toThrow(/does not match/);
    expect(() => openPayoutMethod(keys, { ...stored, type: 'paypal' })).toThrow(/does not match/);
    expect(() => openPayoutMethod(keyRing(randomBytes(32)), stored)).toThrow();
  });

  it('a method in the clear shows no account when serialised, spread, inspected or logged by mistake', () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }) });
    for (const method of [iban(), ach(), paypal(), openPayoutMethod(keys, sealPayoutMethod(keys, ach()))]) {
      logger.info({ method }, 'payout method saved');
      logger.error({ err: new Error('rail failed'), method: { ...method } }, 'payout failed');
      for (const text of [JSON.stringify(method), JSON.stringify({ ...method }), inspect(method), String(method), lines.join('')])
        for (const secret of SECRETS) expect(text, `${method.type}: ${secret}`).not.toContain(secret);
    }
    expect(JSON.parse(lines[0]!)).toMatchObject({ method: { type: 'iban', bic: 'DEUTDEFF', country: 'DE' } });
    expect((iban() as IbanMethod).iban).toBe('DE89370400440532013000');
  });

  it('a refused number is never repeated in the error a client (and the access log) sees', () => {
    for (const [input, number] of [
      [{ type: 'iban', holder_name: 'M', iban: 'DE89370400440532013001', bic: 'DEUTDEFF' }, '0532013001'],
      [{ type: 'iban', holder_name: 'M', iban: 'DE893704004405320130', bic: 'DEUTDEFF' }, '04405320130'],
      [{ type: 'ach', holder_name: 'M', routing_number: '021000022', account_number: '9876543210', account_type: 'checking' }, '021000022'],
      [
        { type: 'ach', holder_name: 'M', routing_number: '021000021', account_number: '98765432109876543210', account_type: 'checking' },
        '98765432109876543210',
      ],
    ] as const) {
      const err = (() => {
        try {
          validatePayoutMethod(input);
        } catch (e) {
          return e as Error & { errors?: unknown };
        }
      })();
      expect(err, number).toMatchObject({ code: 'invalid_parameter' });
      expect(JSON.stringify({ detail: err!.message, errors: err!.errors }), number).not.toContain(number);
    }
  });
});
