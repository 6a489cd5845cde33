/**
 * The network's operators acting on accounts and their credentials (the admin CLI, the portal's
 * operator area): support reads, admin acts; every act is recorded in the audit log with the
 * operator, the account and what changed (never a secret).
 */
import { ApiError } from '@cw/errors';
import {
  API_KEY_KINDS,
  issueCredential,
  issueMerchantToken,
  issueOperatorToken,
  OPERATOR_ROLES,
  revokeCredential,
  rotateCredential,
  type ApiKeyKind,
  type OperatorRole,
  type PublisherInput,
} from '@cw/auth';
import { recordOperatorAct } from '@cw/audit';
import { operatorUseCase } from '@cw/usecase';
import type { AccountDeps } from './deps';
import { createPublishers, reviewPublisher, setAccountStatus } from './accounts.admin';

/** The account lib's deps (accounts and credentials in auth, the audit log). */
export type OperatorAccountDeps = AccountDeps;

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });
const notFound = (detail: string) => new ApiError({ code: 'not_found', detail });

async function mustPublisher(deps: OperatorAccountDeps, id: string) {
  const p = await deps.data.auth.publisherById(id);
  if (!p) throw notFound(`publisher ${id} does not exist`);
  return p;
}

export const operatorCreatePublisher = operatorUseCase(
  'admin',
  async function operatorCreatePublisher(deps: OperatorAccountDeps, operator, input: Omit<PublisherInput, '_id'> & { _id?: string }) {
    const ids = await createPublishers(deps, [input]);
    const doc = (await deps.data.auth.publisherById(ids[0] ?? ''))!;
    await recordOperatorAct(deps.data.audit, operator, 'publisher_created', { name: doc.name, status: doc.status, is_demo: doc.is_demo }, doc._id);
    return { account_id: doc._id, status: doc.status, feed_access: doc.feed_access, markets: doc.markets, is_demo: doc.is_demo };
  },
);

export const operatorListPublishers = operatorUseCase(
  'support',
  async function operatorListPublishers(
    deps: OperatorAccountDeps,
    _operator,
    input: { status?: 'active' | 'inactive' | 'provisional' | 'pending'; limit?: number },
  ) {
    const rows = await deps.data.auth.listPublishers(input.status, input.limit ?? 100);
    return rows.map((p) => ({
      account_id: p._id,
      name: p.name,
      status: p.status,
      website: p.website ?? null,
      markets: p.markets,
      channels: p.channels,
      feed_access: p.feed_access,
      comparison_site: p.comparison_site,
      is_demo: p.is_demo,
      created_at: p.created_at,
    }));
  },
);

export const operatorSetPublisherStatus = operatorUseCase(
  'admin',
  async function operatorSetPublisherStatus(deps: OperatorAccountDeps, operator, input: { publisher: string; status: 'active' | 'inactive' }) {
    const before = await mustPublisher(deps, input.publisher);
    await setAccountStatus(deps, input.publisher, input.status);
    await recordOperatorAct(deps.data.audit, operator, 'publisher_status_changed', { from: before.status, to: input.status }, input.publisher);
    return { account_id: input.publisher, status: input.status };
  },
);

export const operatorReviewPublisher = operatorUseCase(
  'admin',
  async function operatorReviewPublisher(deps: OperatorAccountDeps, operator, input: { publisher: string; decision: 'approve' | 'reject' }) {
    const r = await reviewPublisher(deps, input.publisher, input.decision);
    await recordOperatorAct(deps.data.audit, operator, 'publisher_reviewed', { decision: input.decision, status: r.status }, input.publisher);
    return r;
  },
);

export const operatorSetComparisonSite = operatorUseCase(
  'admin',
  async function operatorSetComparisonSite(deps: OperatorAccountDeps, operator, input: { publisher: string; on: boolean }) {
    await mustPublisher(deps, input.publisher);
    await deps.data.auth.updatePublisher(input.publisher, { comparison_site: input.on });
    await recordOperatorAct(deps.data.audit, operator, 'publisher_comparison_site_changed', { comparison_site: input.on }, input.publisher);
    return { account_id: input.publisher, comparison_site: input.on };
  },
);

type IssuableType = 'api_key' | 'reporting_token' | 'offers_credential' | 'portal_token';

/** Issues a credential of an account (the secret is returned once; the audit entry keeps its prefix only). */
export const operatorIssueCredential = operatorUseCase(
  'admin',
  async function operatorIssueCredential(
    deps: OperatorAccountDeps,
    operator,
    input: { publisher: string; type: IssuableType; kind?: ApiKeyKind; label?: string },
  ) {
    if (input.type === 'api_key' && !(API_KEY_KINDS as readonly string[]).includes(input.kind ?? ''))
      throw invalid('kind', `must be one of ${API_KEY_KINDS.join(', ')}`);
    await mustPublisher(deps, input.publisher);
    const c = await issueCredential(deps.data.auth, input.publisher, input.type, input.kind, input.label, operator.email);
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'credential_issued',
      { credential_id: c.id, type: c.type, kind: c.keyKind ?? null, prefix: c.prefix },
      input.publisher,
    );
    return c;
  },
);

/** Issues a merchant token (its merchant's existence is checked by the caller's programs lib). */
export const operatorIssueMerchantToken = operatorUseCase(
  'admin',
  async function operatorIssueMerchantToken(deps: OperatorAccountDeps, operator, input: { merchant: number; label?: string }) {
    const c = await issueMerchantToken(deps.data.auth, input.merchant, input.label, operator.email);
    await recordOperatorAct(deps.data.audit, operator, 'credential_issued', {
      credential_id: c.id,
      type: c.type,
      merchant_id: input.merchant,
      prefix: c.prefix,
    });
    return c;
  },
);

export const operatorListCredentials = operatorUseCase(
  'support',
  async function operatorListCredentials(deps: OperatorAccountDeps, _operator, input: { publisher: string }) {
    await mustPublisher(deps, input.publisher);
    const creds = await deps.data.auth.credentialsOf(input.publisher);
    return creds.reverse().map((c) => ({ id: String(c._id), type: c.type, kind: c.key_kind ?? null, prefix: c.prefix, status: c.status }));
  },
);

function credentialId(id: string): string {
  if (!/^[a-f0-9]{24}$/.test(id)) throw invalid('id', 'must be a credential id (24 hex characters)');
  return id;
}

export const operatorRevokeCredential = operatorUseCase(
  'admin',
  async function operatorRevokeCredential(deps: OperatorAccountDeps, operator, input: { id: string }) {
    const cred = await deps.data.auth.credentialById(credentialId(input.id));
    if (!cred || !(await revokeCredential(deps.data.auth, input.id))) throw notFound(`no active credential ${input.id}`);
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'credential_revoked',
      { credential_id: input.id, type: cred.type, prefix: cred.prefix, ...(cred.merchant_id ? { merchant_id: cred.merchant_id } : {}) },
      cred.publisher_id ?? undefined,
    );
    return { id: input.id, status: 'revoked' as const };
  },
);

export const operatorRotateCredential = operatorUseCase(
  'admin',
  async function operatorRotateCredential(deps: OperatorAccountDeps, operator, input: { id: string }) {
    const old = await deps.data.auth.credentialById(credentialId(input.id));
    let c;
    try {
      c = await rotateCredential(deps.data.auth, input.id, operator.email);
    } catch (e) {
      throw new ApiError({ code: 'invalid_transition', detail: (e as Error).message });
    }
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'credential_rotated',
      { revoked: input.id, credential_id: c.id, type: c.type, prefix: c.prefix },
      old?.publisher_id ?? undefined,
    );
    return c;
  },
);

/** Issues an operator's own credential (`opr_…`, shown once, stored hashed): only an admin operator issues one. */
export const operatorIssueOperatorToken = operatorUseCase(
  'admin',
  async function operatorIssueOperatorToken(deps: OperatorAccountDeps, operator, input: { email: string; role: OperatorRole }) {
    if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw invalid('email', `"${input.email}" is not an e-mail address`);
    if (!(OPERATOR_ROLES as readonly string[]).includes(input.role)) throw invalid('role', `must be ${OPERATOR_ROLES.join(' or ')}`);
    const t = await issueOperatorToken(deps.data.auth, input.email, input.role, operator.email);
    await recordOperatorAct(deps.data.audit, operator, 'operator_token_issued', { credential_id: t.id, email: t.email, role: t.role, prefix: t.prefix });
    return t;
  },
);
