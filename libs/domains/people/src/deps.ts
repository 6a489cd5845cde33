import type { AuthData } from '@cw/auth';
import type { AuditData } from '@cw/audit';
import type { Mailer } from '@cw/mail';
import type { UseCaseDeps } from '@cw/usecase';
import { peopleModels, type PeopleData, type PeopleModels } from './data/people.data';

/** The people lib's use cases: its own data, the accounts people belong to (auth), the security log, and mail. */
export type PeopleDeps = UseCaseDeps<{ people: PeopleData; auth: AuthData; audit: AuditData }> & { mailer: Mailer };

export const own = (deps: { data: { people: PeopleData } }): PeopleModels => peopleModels(deps.data.people);

/** Where a request comes from, as the security log keeps it (never the address or its prefix in the clear). */
export interface RequestOrigin {
  /** The client's network (/24, /48) as a keyed hash, `net_…`: what people are shown. */
  address?: string;
  /** The whole address as a keyed hash, for matching. */
  addressHash?: string;
  userAgent?: string;
  requestId?: string;
  /** The client's address as the sign-in limits count it (an IPv6 address by its /64); only the guard reads it, keyed. */
  client?: string;
  /** The sign-in device cookie the request carried (signin-guard.ts); never stored or logged. */
  device?: string;
}
