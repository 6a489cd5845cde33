/**
 * An account's credentials as its people manage them in the portal: every kind with its prefix,
 * label, who issued it and when it was last used; issue (the secret shown once), rotate and revoke,
 * effective at the next request (the access stamps). Owners and developers only, with the password
 * given in the last minutes; every act goes to the account's security log.
 */
import { ApiError } from '@cw/errors';
import { issueCredential, revokeCredential, rotateCredential, WRITERS, type CredentialRow, type Policy, type Principal } from '@cw/auth';
import { actorOf } from '@cw/audit';
import { useCase, type InputOf } from '@cw/usecase';
import type { AccountDeps } from './deps';
import { KEY_ISSUE_INPUT } from './settings.schemas';

const READ_KEYS: Policy = { budget: 'portal', roles: WRITERS };
const CHANGE_KEYS: Policy = { budget: 'portal', roles: WRITERS, reauthenticate: true };

type KeysDeps = Pick<AccountDeps, 'config' | 'data'>;

const issuer = (principal: Principal) => principal.person?.email ?? principal.prefix;

function credentialView(c: CredentialRow, lastUsed: Date | undefined) {
  return {
    id: String(c._id),
    type: c.type,
    key_kind: c.key_kind ?? null,
    prefix: c.prefix,
    label: c.label ?? null,
    status: c.status,
    created_at: c.created_at,
    created_by: c.created_by ?? null,
    last_used_at: lastUsed ?? null,
    revoked_at: c.revoked_at ?? null,
  };
}

export const listKeys = useCase(READ_KEYS, async function listKeys(deps: KeysDeps, principal: Principal) {
  const rows = await deps.data.auth.credentialsOf(principal.publisher._id);
  const used = await deps.data.auth.lastUsed(rows.map((r) => String(r._id)));
  // Active first, then revoked; each newest first.
  const ordered = [...rows.filter((r) => r.status === 'active'), ...rows.filter((r) => r.status !== 'active')];
  return { data: ordered.map((r) => credentialView(r, used.get(String(r._id)))) };
});

function requireActiveAccount(principal: Principal): void {
  if (principal.publisher.status !== 'active')
    throw new ApiError({
      code: 'account_not_active',
      detail: 'Credentials can be issued once the network has reviewed and approved the account.',
    });
}

async function ownCredential(deps: KeysDeps, principal: Principal, id: string): Promise<CredentialRow> {
  const c = await deps.data.auth.credentialById(id);
  if (!c || c.publisher_id !== principal.publisher._id || c.status !== 'active')
    throw new ApiError({ code: 'not_found', detail: 'No such active credential.' });
  return c;
}

export const issueKey = useCase(
  CHANGE_KEYS,
  async function issueKey(deps: KeysDeps, principal: Principal, input: InputOf<typeof KEY_ISSUE_INPUT>) {
    requireActiveAccount(principal);
    const issued = await issueCredential(deps.data.auth, principal.publisher._id, input.type, input.key_kind, input.label, issuer(principal));
    await deps.data.audit.record({
      account_id: principal.publisher._id,
      type: 'credential_issued',
      ...actorOf(principal),
      detail: { credential_id: issued.id, type: issued.type, key_kind: issued.keyKind ?? null, prefix: issued.prefix, label: input.label ?? null },
    });
    const row = await deps.data.auth.credentialById(issued.id);
    return { credential: credentialView(row!, undefined), secret: issued.secret };
  },
  KEY_ISSUE_INPUT,
);

export const rotateKey = useCase(CHANGE_KEYS, async function rotateKey(deps: KeysDeps, principal: Principal, id: string) {
  requireActiveAccount(principal);
  const old = await ownCredential(deps, principal, id);
  const issued = await rotateCredential(deps.data.auth, String(old._id), issuer(principal));
  await deps.data.audit.record({
    account_id: principal.publisher._id,
    type: 'credential_rotated',
    ...actorOf(principal),
    detail: {
      credential_id: issued.id,
      replaces: String(old._id),
      type: issued.type,
      key_kind: issued.keyKind ?? null,
      prefix: issued.prefix,
      revoked_prefix: old.prefix,
    },
  });
  const row = await deps.data.auth.credentialById(issued.id);
  return { credential: credentialView(row!, undefined), secret: issued.secret };
});

export const revokeKey = useCase(CHANGE_KEYS, async function revokeKey(deps: KeysDeps, principal: Principal, id: string) {
  const old = await ownCredential(deps, principal, id);
  if (!(await revokeCredential(deps.data.auth, String(old._id)))) throw new ApiError({ code: 'not_found', detail: 'No such active credential.' });
  await deps.data.audit.record({
    account_id: principal.publisher._id,
    type: 'credential_revoked',
    ...actorOf(principal),
    detail: { credential_id: String(old._id), type: old.type, key_kind: old.key_kind ?? null, prefix: old.prefix },
  });
});
