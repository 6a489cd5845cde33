/**
 * Sign-ins to the portal for the demo accounts: each publisher's owner and an analyst of
 * publishers[0] (DESIGN.md "People"), with a password of 96 random bits written only to the
 * credentials file, and the network's operator (`fixtures.operator_login`). Also what an older local database, seeded before the portal existed, gets on
 * its next start, so its credentials file gains the fields outside tools read.
 */
import { randomBytes } from 'node:crypto';
import type { MemberRole } from '@cw/auth';
import { createPerson } from '@cw/people';
import type { PlatformData } from '@cw/runtime';
import type { DemoDataset, PortalLogin } from './generate';

export async function createPortalLogin(data: PlatformData, accountId: string, role: MemberRole, email: string, now = new Date()): Promise<PortalLogin> {
  const password = randomBytes(12).toString('base64url');
  await createPerson({ data }, { email, password, name: role === 'owner' ? 'Demo owner' : 'Demo analyst' }, [{ accountId, role }], now);
  return { email, password };
}

/** The local platform's operator: an admin operator in the portal's operator area, member of no account (`fixtures.operator_login`). */
export async function createOperatorLogin(data: PlatformData, email: string, now = new Date()): Promise<PortalLogin> {
  const password = randomBytes(12).toString('base64url');
  await createPerson({ data }, { email, password, name: 'Demo operator', operatorRole: 'admin' }, [], now);
  return { email, password };
}

/** The address of a demo login: `role@<the account's site>`, or under the account id when it has no site. */
async function loginEmail(data: PlatformData, accountId: string, role: MemberRole): Promise<string> {
  const account = await data.auth.publisherById(accountId);
  const host = account?.website ? new URL(account.website).hostname : `${accountId.replace(/_/g, '-')}.example`;
  return `${role}@${host}`;
}

/** Adds the portal logins a credentials file lacks (an older seed); false when it had them all. */
export async function addMissingPortalLogins(data: PlatformData, dataset: Pick<DemoDataset, 'publishers' | 'fixtures'>): Promise<boolean> {
  let added = false;
  for (const p of dataset.publishers) {
    if (p.portal_login) continue;
    p.portal_login = await createPortalLogin(data, p.account_id, 'owner', await unusedEmail(data, await loginEmail(data, p.account_id, 'owner')));
    added = true;
  }
  const first = dataset.publishers[0];
  if (first && !dataset.fixtures.analyst_login) {
    dataset.fixtures.analyst_login = await createPortalLogin(
      data,
      first.account_id,
      'analyst',
      await unusedEmail(data, await loginEmail(data, first.account_id, 'analyst')),
    );
    added = true;
  }
  if (!dataset.fixtures.operator_login) {
    dataset.fixtures.operator_login = await createOperatorLogin(data, await unusedEmail(data, OPERATOR_EMAIL));
    added = true;
  }
  if (!dataset.fixtures.approver_login) {
    dataset.fixtures.approver_login = await createOperatorLogin(data, await unusedEmail(data, APPROVER_EMAIL));
    added = true;
  }
  return added;
}

/** The demo operator's address. */
export const OPERATOR_EMAIL = 'operator@network.example';
/** The second admin operator, who approves payout runs. */
export const APPROVER_EMAIL = 'approver@network.example';

/** The address itself when no one has it, else a tagged one (`owner+2@…`): a password cannot be recovered, only a new person made. */
async function unusedEmail(data: PlatformData, email: string): Promise<string> {
  const [local, host] = email.split('@') as [string, string];
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? email : `${local}+${i}@${host}`;
    if (!(await data.people.userExists(candidate))) return candidate;
  }
}
