/**
 * The tax profile of an account (`/settings/tax`): owners only read and change it (the password
 * given in the last 10 minutes to change it). The payouts lib's use cases decide; the profile is
 * sealed as it arrives and comes back with the taxpayer and VAT ids masked. No API key or app's
 * token reaches it (the publisher API has no such route).
 */
import { route, type RouteSpec } from '@cw/http';
import { getTaxProfile, TAX_PROFILE_INPUT, updateTaxProfile } from '@cw/payouts';
import { mayWrite, memberOf, principalIn, spendPortalBudget, type PortalDeps } from '../portal-context';
import { E } from './schemas';

const TAGS = ['Payouts'];
const ACCOUNT = { account: { type: 'string', description: 'An account the person belongs to (pub_…).' } };
const ERRORS = {
  401: E('Not signed in'),
  403: E('role_not_allowed (owners only), reauthentication_required or csrf_failed'),
  404: E('Not a member of this account'),
  429: E('Rate limited'),
};
const VIEW =
  '{profile: {kind, legal_name, address: {lines, city, postal_code, region, country}, country, form (w9, w8ben, w8ben_e), vat_id (masked), tin_kind (ssn, ein, foreign), tin (masked), w8: {country, treaty} | null, signed_by, signed_at} | null, payee_country, required, payouts_held}';

export function taxRoutes(deps: PortalDeps): RouteSpec[] {
  const member = [spendPortalBudget(deps), memberOf(deps)];
  return [
    route({
      method: 'GET',
      path: '/accounts/:account/tax-profile',
      operationId: 'getTaxProfile',
      summary: "The account's tax profile (owners): names, address and countries; the taxpayer and VAT ids masked; whether payouts wait for it",
      tags: TAGS,
      pathParams: ACCOUNT,
      before: member,
      responses: { 200: E(VIEW), ...ERRORS },
      handler: async (ctx) => {
        ctx.body = await getTaxProfile(deps, principalIn(ctx));
      },
    }),
    route({
      method: 'PUT',
      path: '/accounts/:account/tax-profile',
      operationId: 'updateTaxProfile',
      summary:
        'Set the tax profile (owners, password in the last 10 minutes): W-9 for US persons, W-8BEN / W-8BEN-E for others, signed by typing the legal name',
      description:
        'The whole profile each time. Sealed as it arrives; the taxpayer and VAT ids are never shown again (masked). A change is in the security log (tax_profile_changed) and the owners are told by mail. Payees in a country of PAYOUT_TAX_PROFILE_COUNTRIES (US by default) are paid only once it is set.',
      tags: TAGS,
      pathParams: ACCOUNT,
      body: TAX_PROFILE_INPUT,
      // The role is checked before the body: a member who may not change it learns 403, not the form's rules.
      before: [...member, mayWrite(updateTaxProfile.policy)],
      responses: { 200: E(`The profile, as GET answers it: ${VIEW}`), 400: E('invalid_parameter: a field named in errors[]'), ...ERRORS },
      handler: async (ctx, { body }) => {
        ctx.body = await updateTaxProfile(deps, principalIn(ctx), body);
      },
    }),
  ];
}
