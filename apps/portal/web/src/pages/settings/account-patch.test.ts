import { describe, expect, it } from 'vitest';
import { validateAccountPatch } from '../../generated/validators.js';
import { checkForm } from '../../lib/validation';
import { accountPatchOf, type AccountDraft } from './account-patch';

const stored = {
  name: 'Ana’s Reviews',
  website: 'https://ana.example',
  channels: ['content', 'social'],
  timezone: 'Europe/Berlin',
  payout_method_type: 'paypal',
  link_fallback: true,
} as const;
const unchanged: AccountDraft = {
  name: stored.name,
  website: stored.website,
  channels: [...stored.channels],
  timezone: stored.timezone,
  payout: stored.payout_method_type,
  fallback: true,
};
const account = { ...stored, channels: [...stored.channels] } as Parameters<typeof accountPatchOf>[0];

describe('the account form', () => {
  it('sends nothing when no field changed', () => {
    expect(accountPatchOf(account, unchanged)).toEqual({});
    expect(accountPatchOf(account, { ...unchanged, name: ` ${stored.name} ` })).toEqual({});
  });

  it('sends only the fields changed, trimmed', () => {
    expect(accountPatchOf(account, { ...unchanged, name: ' Ana Reviews ', timezone: 'America/New_York', fallback: false })).toEqual({
      name: 'Ana Reviews',
      timezone: 'America/New_York',
      link_fallback: false,
    });
    expect(accountPatchOf(account, { ...unchanged, channels: ['content'] })).toEqual({ channels: ['content'] });
  });

  it('leaves an emptied website or time zone as it is (the API cannot clear them)', () => {
    expect(accountPatchOf(account, { ...unchanged, website: '  ', timezone: '' })).toEqual({});
  });

  it('sends a payout method type only when another is chosen', () => {
    const none = { ...account, payout_method_type: 'none' };
    expect(accountPatchOf(none, { ...unchanged, payout: 'none' })).toEqual({});
    expect(accountPatchOf(none, { ...unchanged, payout: 'bank_account' })).toEqual({ payout_method_type: 'bank_account' });
  });

  it('is checked with the API’s schema: a website must start with http:// or https://', () => {
    const patch = accountPatchOf(account, { ...unchanged, website: 'ftp://ana.example' });
    expect(checkForm(validateAccountPatch, patch)?.fields).toEqual({ website: 'Must start with http:// or https://.' });
  });
});
