/**
 * Who sees which events of the log. Sale events: whoever may read the feed (EVENTS_POLICY).
 * Another family's events only reach readers who may read what they are about: a payout event
 * carries the payout (amount, method type and last 4, failure reason), so it follows the payouts'
 * own rule (DESIGN.md "Money out": live keys, OAuth `affiliate:read`, the account's people in the
 * portal): test, sandbox and read-only keys, the reporting token and the portal API token do not
 * see them. A hidden event keeps its number: the reader's cursors move past it.
 */
import { authorize, type Policy, type Principal } from '@cw/auth';
import { PAYOUT_EVENT_TYPES } from './event-types';

interface Family {
  types: readonly string[];
  /** The principal types that may see the family at all. */
  principals: readonly string[];
  /** And the rule they must pass (key kinds, OAuth scope). */
  policy: Policy;
}

const FAMILIES: readonly Family[] = [
  {
    types: PAYOUT_EVENT_TYPES,
    principals: ['api_key', 'oauth_token', 'portal_session'],
    policy: { budget: 'account', refuseKinds: ['test', 'sandbox', 'read_only'], scope: 'affiliate:read' },
  },
];

function mayRead(principal: Principal, family: Family): boolean {
  if (!family.principals.includes(principal.type)) return false;
  try {
    authorize(principal, family.policy);
    return true;
  } catch {
    return false;
  }
}

/** The event types this reader of the feed does not see (none for most: [] keeps the plain reads). */
export function hiddenEventTypes(principal: Principal | undefined): string[] {
  if (!principal) return FAMILIES.flatMap((f) => f.types);
  return FAMILIES.filter((f) => !mayRead(principal, f)).flatMap((f) => f.types);
}
