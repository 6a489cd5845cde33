/**
 * A tax profile at rest: the whole profile sealed with the platform's key ring (AES-256-GCM,
 * `seal` of @cw/config, as payout methods are) beside what may be read without opening it: the
 * kind, country, form, the kind of taxpayer id and its masked face, and when it was signed.
 * Opened for the owner's view (`/settings/tax`), a statement (`taxPartyOf`) and the year-end
 * filing export; never for an API answer or a log.
 */
import { open, seal, type KeyRing, type SealedSecret } from '@cw/config';
import type { TaxForm, TaxKind } from './tax-profile.schemas';
import { countryName, type TaxAddress, type TaxProfile } from './validate-tax-profile';

export type TinKind = 'ssn' | 'ein' | 'foreign';

export interface StoredTaxProfile {
  kind: TaxKind;
  country: string;
  form: TaxForm;
  tin_kind: TinKind | null;
  tin_masked: string | null;
  vat_masked: string | null;
  signed_at: Date;
  sealed: SealedSecret;
}

const DOT = '•';

/** 123-45-6789 -> •••-••-6789; 12-3456789 -> ••-•••6789; a foreign id -> its last 4 after three dots (all dots when 6 or shorter). */
export function maskTin(kind: TinKind, tin: string): string {
  const digits = tin.replace(/[\s./-]/g, '');
  if (kind === 'ssn') return `${DOT.repeat(3)}-${DOT.repeat(2)}-${digits.slice(-4)}`;
  if (kind === 'ein') return `${DOT.repeat(2)}-${DOT.repeat(3)}${digits.slice(-4)}`;
  return digits.length > 6 ? `${DOT.repeat(3)}${digits.slice(-4)}` : DOT.repeat(4);
}

/** DE136695976 -> DE•••5976 (the country prefix and the last 4). */
export const maskVatId = (vat: string): string => `${vat.slice(0, 2)}${DOT.repeat(3)}${vat.slice(-4)}`;

export const tinKindOf = (p: Pick<TaxProfile, 'w9' | 'w8'>): TinKind | null => p.w9?.tin_kind ?? (p.w8 ? 'foreign' : null);
const tinOf = (p: Pick<TaxProfile, 'w9' | 'w8'>): string | null => p.w9?.tin ?? p.w8?.foreign_tin ?? null;

export function sealTaxProfile(keys: KeyRing, profile: TaxProfile): StoredTaxProfile {
  const kind = tinKindOf(profile);
  const tin = tinOf(profile);
  return {
    kind: profile.kind,
    country: profile.country,
    form: profile.form,
    tin_kind: kind,
    tin_masked: kind && tin ? maskTin(kind, tin) : null,
    vat_masked: profile.vat_id ? maskVatId(profile.vat_id) : null,
    signed_at: new Date(profile.signed_at),
    sealed: seal(keys, JSON.stringify(profile)),
  };
}

/** The profile in the clear. Throws when the seal was altered, its key is not in the ring, or it is not the stored profile's. */
export function openTaxProfile(keys: KeyRing, stored: StoredTaxProfile): TaxProfile {
  const profile = JSON.parse(open(keys, stored.sealed)) as TaxProfile;
  if (profile.kind !== stored.kind || profile.country !== stored.country || profile.form !== stored.form)
    throw new Error('the sealed tax profile does not match its stored kind, country and form');
  return profile;
}

/** The address as lines a letter or a statement prints: the street lines, postal code and city (US: city, state ZIP), region, country. */
export function addressLines(a: TaxAddress): string[] {
  if (a.country === 'US') return [...a.lines, `${a.city}, ${a.region ?? ''} ${a.postal_code}`.replace(/ {2,}/g, ' '), countryName('US')];
  return [...a.lines, `${a.postal_code} ${a.city}`, ...(a.region ? [a.region] : []), countryName(a.country)];
}

/** What the owner sees in `/settings/tax`: names, address and countries; the taxpayer and VAT ids masked. */
export function ownerTaxView(stored: StoredTaxProfile, profile: TaxProfile) {
  return {
    kind: profile.kind,
    legal_name: profile.legal_name,
    address: profile.address,
    country: profile.country,
    form: profile.form,
    vat_id: stored.vat_masked,
    tin_kind: stored.tin_kind,
    tin: stored.tin_masked,
    w8: profile.w8 ? { country: profile.w8.country, treaty: profile.w8.treaty ?? null } : null,
    signed_by: profile.signature,
    signed_at: stored.signed_at,
  };
}
