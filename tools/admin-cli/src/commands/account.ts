/** Accounts and their credentials, and operators' own tokens: through the account lib's operator use cases (audited). */
import { API_KEY_KINDS, OPERATOR_ROLES, type ApiKeyKind } from '@cw/auth';
import {
  operatorCreatePublisher,
  operatorIssueCredential,
  operatorIssueOperatorToken,
  operatorListCredentials,
  operatorListPublishers,
  operatorReviewPublisher,
  operatorRevokeCredential,
  operatorRotateCredential,
  operatorSetComparisonSite,
  operatorSetPublisherStatus,
} from '@cw/account';
import { ApiError } from '@cw/errors';
import { choice, countries, int, list, mustPublisher, str, url, UsageError, type CommandSpec } from './shared';

export const ACCOUNT_COMMANDS: Record<string, CommandSpec> = {
  'publisher:create': {
    summary: 'Create a publisher account',
    options: {
      name: { type: 'string', required: true, doc: 'display name' },
      id: { type: 'string', doc: 'account id (default pub_<random>)' },
      website: { type: 'string', doc: 'website URL' },
      markets: { type: 'string', doc: 'authorized feed markets, e.g. DE,GB (empty: no market list)' },
      channels: { type: 'string', doc: 'content,coupon,social' },
      'no-feed-access': { type: 'boolean', doc: 'product feed access inactive' },
      demo: { type: 'boolean', doc: 'demo account (test, nonpayable)' },
      inactive: { type: 'boolean', doc: 'create inactive' },
      trending: { type: 'boolean', doc: 'subscribe to trending opportunities (in its channels)' },
    },
    run: (deps, o) =>
      operatorCreatePublisher(deps, deps.operator, {
        _id: str(o, 'id'),
        name: str(o, 'name')!,
        website: str(o, 'website') ? url(str(o, 'website'), 'website') : undefined,
        status: o.inactive ? 'inactive' : 'active',
        is_demo: !!o.demo,
        feed_access: !o['no-feed-access'],
        markets: countries(o, 'markets') ?? [],
        channels: list(o, 'channels') ?? [],
        trending_subscribed: !!o.trending,
        trending_channels: o.trending ? (list(o, 'channels') ?? []) : [],
      }),
  },
  'publisher:list': {
    summary: 'List publisher accounts, newest first',
    options: {
      status: { type: 'string', doc: 'active, inactive, provisional or pending (signed up in the portal, awaiting review)' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: (deps, o) =>
      operatorListPublishers(deps, deps.operator, {
        status: choice(o, 'status', ['active', 'inactive', 'provisional', 'pending'] as const),
        limit: int(o, 'limit'),
      }),
  },
  'publisher:set-status': {
    summary: 'Activate or deactivate an account (applies to the next request)',
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, status: { type: 'string', required: true, doc: 'active or inactive' } },
    run: (deps, o) =>
      operatorSetPublisherStatus(deps, deps.operator, { publisher: str(o, 'publisher')!, status: choice(o, 'status', ['active', 'inactive'] as const)! }),
  },
  'publisher:approve': {
    summary: 'Approve an account signed up in the portal (pending review): it becomes active, and its people issue their keys in the portal',
    options: { publisher: { type: 'string', required: true, doc: 'account id' } },
    run: (deps, o) => operatorReviewPublisher(deps, deps.operator, { publisher: str(o, 'publisher')!, decision: 'approve' }),
  },
  'publisher:reject': {
    summary: 'Reject an account signed up in the portal (pending review): it becomes inactive',
    options: { publisher: { type: 'string', required: true, doc: 'account id' } },
    run: (deps, o) => operatorReviewPublisher(deps, deps.operator, { publisher: str(o, 'publisher')!, decision: 'reject' }),
  },
  'key:issue': {
    summary: 'Issue an API key (the secret is shown once)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      kind: { type: 'string', required: true, doc: API_KEY_KINDS.join('|') },
      label: { type: 'string', doc: 'label' },
    },
    run: async (deps, o) => {
      const kind = str(o, 'kind') as ApiKeyKind;
      if (!API_KEY_KINDS.includes(kind)) throw new UsageError(`--kind must be one of ${API_KEY_KINDS.join(', ')}`);
      await mustPublisher(deps, str(o, 'publisher')!);
      const c = await operatorIssueCredential(deps, deps.operator, { publisher: str(o, 'publisher')!, type: 'api_key', kind, label: str(o, 'label') });
      return { id: c.id, kind, prefix: c.prefix, secret: c.secret };
    },
  },
  'credential:issue': {
    summary: 'Issue a reporting token, offers credential or portal token (shown once)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      type: { type: 'string', required: true, doc: 'reporting_token|offers_credential|portal_token' },
    },
    run: async (deps, o) => {
      const type = str(o, 'type');
      if (type !== 'reporting_token' && type !== 'offers_credential' && type !== 'portal_token')
        throw new UsageError('--type must be reporting_token, offers_credential or portal_token');
      await mustPublisher(deps, str(o, 'publisher')!);
      const c = await operatorIssueCredential(deps, deps.operator, { publisher: str(o, 'publisher')!, type });
      return { id: c.id, type, prefix: c.prefix, secret: c.secret };
    },
  },
  'credential:list': {
    summary: "List an account's credentials (prefixes only, never secrets)",
    options: { publisher: { type: 'string', required: true, doc: 'account id' } },
    run: async (deps, o) => {
      await mustPublisher(deps, str(o, 'publisher')!);
      return operatorListCredentials(deps, deps.operator, { publisher: str(o, 'publisher')! });
    },
  },
  'credential:revoke': {
    summary: 'Revoke a credential of any kind (applies to the next request)',
    options: { id: { type: 'string', required: true, doc: 'credential id' } },
    run: async (deps, o) => {
      if (!/^[a-f0-9]{24}$/.test(str(o, 'id') ?? '')) throw new UsageError('--id must be a credential id (24 hex characters)');
      try {
        return await operatorRevokeCredential(deps, deps.operator, { id: str(o, 'id')! });
      } catch (e) {
        throw e instanceof ApiError && e.code === 'not_found' ? new UsageError(e.detail) : e;
      }
    },
  },
  'credential:rotate': {
    summary: 'Replace a credential with a new one of the same kind; the old one stops at once',
    options: { id: { type: 'string', required: true, doc: 'credential id' } },
    run: async (deps, o) => {
      if (!/^[a-f0-9]{24}$/.test(str(o, 'id') ?? '')) throw new UsageError('--id must be a credential id (24 hex characters)');
      try {
        const c = await operatorRotateCredential(deps, deps.operator, { id: str(o, 'id')! });
        return { revoked: str(o, 'id'), id: c.id, type: c.type, kind: c.keyKind ?? null, prefix: c.prefix, secret: c.secret };
      } catch (e) {
        throw e instanceof ApiError && e.code === 'invalid_transition' ? new UsageError(e.detail) : e;
      }
    },
  },
  'publisher:set-comparison-site': {
    summary: 'Authorize an account as a comparison site (feeds may filter by merchant) or withdraw it (--off)',
    options: { publisher: { type: 'string', required: true, doc: 'account id' }, off: { type: 'boolean', doc: 'withdraw the authorization' } },
    run: async (deps, o) => {
      await mustPublisher(deps, str(o, 'publisher')!);
      return operatorSetComparisonSite(deps, deps.operator, { publisher: str(o, 'publisher')!, on: !o.off });
    },
  },
  'operator:issue': {
    summary:
      "Issue an operator's own credential (opr_…, shown once, stored hashed): support reads, admin acts; set it as OPERATOR_TOKEN to run commands against production",
    options: {
      email: { type: 'string', required: true, doc: "the operator's e-mail (named in the audit log)" },
      role: { type: 'string', required: true, doc: 'support or admin' },
    },
    run: async (deps, o) => {
      const role = choice(o, 'role', OPERATOR_ROLES)!;
      const t = await operatorIssueOperatorToken(deps, deps.operator, { email: str(o, 'email')!, role });
      return { id: t.id, email: t.email, role: t.role, prefix: t.prefix, secret: t.secret };
    },
  },
};
