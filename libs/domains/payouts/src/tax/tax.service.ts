/**
 * A publisher's tax profile (`/settings/tax`): only an owner, in the portal, reads it (names,
 * address and countries in the clear, the taxpayer and VAT ids masked) and changes it, with the
 * password given in the last 10 minutes; a change is in the security log and the owners are told.
 * It is sealed with the key ring and never in an API answer. Payouts to a payee in a country of
 * `PAYOUT_TAX_PROFILE_COUNTRIES` wait (`tax_profile_incomplete`) until the profile is there.
 */
import { actorOf } from '@cw/audit';
import { OWNERS, type Policy, type Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { useCase, type InputOf } from '@cw/usecase';
import type { ProfileRow } from '../settings.service';
import { own, type PayoutsDeps } from '../deps';
import { TAX_PROFILE_INPUT } from './tax-profile.schemas';
import { addressLines, openTaxProfile, ownerTaxView, sealTaxProfile, type StoredTaxProfile, type TinKind } from './seal-tax-profile';
import { validateTaxProfile, type TaxAddress } from './validate-tax-profile';

/** Owners, in the portal: an API key or an app's token never reads or changes it (no OAuth scope grants it). */
const READ_POLICY: Policy = { budget: 'portal', roles: OWNERS };
const WRITE_POLICY: Policy = { budget: 'portal', roles: OWNERS, reauthenticate: true };

type TaxRow = Pick<ProfileRow, 'method'> & { tax?: StoredTaxProfile | null };

/**
 * The payee's country: the tax profile's, else the payout method's (an IBAN's country, ACH: US);
 * a PayPal address says no country, so without a profile it is unknown (null).
 */
export function payeeCountryOf(row: TaxRow | null | undefined): string | null {
  return row?.tax?.country ?? row?.method?.country ?? (row?.method?.type === 'ach' ? 'US' : null);
}

/** Whether the network's rules need a tax profile of this payee: its country is listed, or `*` lists everyone (unknown too). */
export function taxProfileRequired(deps: Pick<PayoutsDeps, 'config'>, row: TaxRow | null | undefined): boolean {
  const listed = deps.config.payouts.taxProfileRequiredCountries;
  if (listed.includes('*')) return true;
  const country = payeeCountryOf(row);
  return country !== null && listed.includes(country);
}

/** A payout to this payee waits: the rules need a profile and there is none (a stored profile is complete: it was checked whole). */
export const taxProfileIncomplete = (deps: Pick<PayoutsDeps, 'config'>, row: TaxRow | null | undefined): boolean => !row?.tax && taxProfileRequired(deps, row);

async function taxRowOf(deps: Pick<PayoutsDeps, 'data'>, publisherId: string): Promise<TaxRow | null> {
  return own(deps).PayoutProfile.findById(publisherId, { method: 1, tax: 1 }).lean<TaxRow>();
}

function view(deps: Pick<PayoutsDeps, 'config'>, row: TaxRow | null) {
  return {
    profile: row?.tax ? ownerTaxView(row.tax, openTaxProfile(deps.config.keys, row.tax)) : null,
    payee_country: payeeCountryOf(row),
    required: taxProfileRequired(deps, row),
    payouts_held: taxProfileIncomplete(deps, row),
  };
}

const portalOnly = (principal: Principal, what: string) => {
  if (principal.type !== 'portal_session')
    throw new ApiError({ code: 'credential_not_allowed', detail: `The tax profile is ${what} in the portal, by an owner of the account.` });
};

export const getTaxProfile = useCase(READ_POLICY, async function getTaxProfile(deps: PayoutsDeps, principal: Principal) {
  portalOnly(principal, 'read');
  return view(deps, await taxRowOf(deps, principal.publisher._id));
});

export const updateTaxProfile = useCase(
  WRITE_POLICY,
  async function updateTaxProfile(deps: PayoutsDeps, principal: Principal, input: InputOf<typeof TAX_PROFILE_INPUT>, now: Date = new Date()) {
    portalOnly(principal, 'changed');
    const id = principal.publisher._id;
    const stored = sealTaxProfile(deps.config.keys, validateTaxProfile(input, now));
    await own(deps).PayoutProfile.updateOne({ _id: id }, { $set: { tax: stored, updated_at: now } }, { upsert: true });
    await deps.data.audit.record({
      account_id: id,
      type: 'tax_profile_changed',
      ...actorOf(principal),
      // What changed, never a number: the masked ids only.
      detail: { kind: stored.kind, country: stored.country, form: stored.form, tin_kind: stored.tin_kind, tin: stored.tin_masked, vat_id: stored.vat_masked },
    });
    await deps.notify?.({ kind: 'tax_profile_changed', publisherId: id }).catch(() => undefined);
    return view(deps, await taxRowOf(deps, id));
  },
  TAX_PROFILE_INPUT,
);

/** Sets a publisher's tax profile as given, signed at `now` (the seed and tests; people go through `updateTaxProfile`). */
export async function setTaxProfile(deps: Pick<PayoutsDeps, 'data' | 'config'>, publisherId: string, input: unknown, now = new Date()): Promise<void> {
  const stored = sealTaxProfile(deps.config.keys, validateTaxProfile(input, now));
  await own(deps).PayoutProfile.updateOne({ _id: publisherId }, { $set: { tax: stored, updated_at: now } }, { upsert: true });
}

/** The payee as a self-billing statement names it (in the clear: a statement is the publisher's own document). */
export interface TaxParty {
  kind: 'individual' | 'company';
  legal_name: string;
  /** Street lines, postal code and city, region, country name: as printed. */
  address_lines: string[];
  address: TaxAddress;
  country: string;
  vat_id: string | null;
  tin_kind: TinKind | null;
  tin_masked: string | null;
}

/** The publisher's tax details for a statement, or null without a tax profile. */
export async function taxPartyOf(deps: Pick<PayoutsDeps, 'data' | 'config'>, publisherId: string): Promise<TaxParty | null> {
  const row = await own(deps).PayoutProfile.findById(publisherId, { tax: 1 }).lean<TaxRow>();
  if (!row?.tax) return null;
  const p = openTaxProfile(deps.config.keys, row.tax);
  return {
    kind: p.kind,
    legal_name: p.legal_name,
    address_lines: addressLines(p.address),
    address: p.address,
    country: p.country,
    vat_id: p.vat_id,
    tin_kind: row.tax.tin_kind,
    tin_masked: row.tax.tin_masked,
  };
}
