/**
 * The account form's patch (apart from the form): only what changed, as the API takes a patch of
 * at least one member. An emptied website or time zone is left unchanged (the API cannot clear
 * them: NOTES.md).
 */
import type { Account } from '../../api/types';

export interface AccountDraft {
  name: string;
  website: string;
  channels: string[];
  timezone: string;
  /** The payout method type, 'none' for none. */
  payout: string;
  /** Whether a sold-out product's link sends visitors to the same product at another program. */
  fallback: boolean;
}

export function accountPatchOf(
  account: Pick<Account, 'name' | 'website' | 'channels' | 'timezone' | 'payout_method_type' | 'link_fallback'>,
  d: AccountDraft,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (d.name.trim() !== account.name) patch.name = d.name.trim();
  if (d.website.trim() !== (account.website ?? '') && d.website.trim()) patch.website = d.website.trim();
  if (d.channels.join() !== account.channels.join()) patch.channels = d.channels;
  if (d.timezone && d.timezone !== account.timezone) patch.timezone = d.timezone;
  if (d.payout !== (account.payout_method_type ?? 'none')) patch.payout_method_type = d.payout;
  if (d.fallback !== (account.link_fallback !== false)) patch.link_fallback = d.fallback;
  return patch;
}
