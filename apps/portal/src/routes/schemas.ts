/** Response schemas of the portal's own endpoints (its OpenAPI document). */
export const E = (description: string) => ({ description });

export const SESSION_SCHEMA = {
  type: 'object',
  properties: {
    user: { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' }, name: { type: ['string', 'null'] } } },
    accounts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          account_id: { type: 'string' },
          name: { type: 'string' },
          role: { type: 'string', enum: ['owner', 'developer', 'analyst'] },
          status: { type: 'string' },
        },
      },
    },
    csrf_token: { type: 'string', description: 'Send as X-CSRF-Token on every POST, PUT, PATCH and DELETE.' },
    reauthenticated_until: { type: ['string', 'null'], format: 'date-time' },
    operator: {
      type: ['object', 'null'],
      description: "The person's operator role (the operator area under /portal/api/operator/), or null: not an operator.",
      properties: { role: { type: 'string', enum: ['support', 'admin'] } },
    },
  },
};

/** The session after accepting an invitation, with the account joined. */
export const JOINED_SESSION_SCHEMA = {
  ...SESSION_SCHEMA,
  properties: {
    ...SESSION_SCHEMA.properties,
    joined: {
      type: 'object',
      description: 'The account joined and the role in it.',
      properties: { account_id: { type: 'string' }, role: { type: 'string', enum: ['owner', 'developer', 'analyst'] } },
    },
  },
};

const ROLE = { type: 'string', enum: ['owner', 'developer', 'analyst'] };
const DATE_TIME = { type: 'string', format: 'date-time' };
const NULLABLE_DATE_TIME = { type: ['string', 'null'], format: 'date-time' };
const NULLABLE_STRING = { type: ['string', 'null'] };
/** An object whose every member the answer writes. */
const all = (properties: Record<string, unknown>, description?: string) => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  properties,
});

/** GET and PATCH /accounts/:account. */
export const ACCOUNT_SETTINGS_SCHEMA = all({
  account_id: { type: 'string' },
  name: { type: 'string' },
  website: NULLABLE_STRING,
  channels: { type: 'array', items: { type: 'string' } },
  markets: { type: 'array', items: { type: 'string' } },
  timezone: { type: 'string', description: 'IANA time zone (UTC when none was set).' },
  payout_method_type: { type: 'string', description: 'bank_account, paypal or none.' },
  link_fallback: { type: 'boolean', description: 'Product links fall back to the same GTIN at another program (decision 0063); false: off for every link.' },
  status: { type: 'string' },
  role: { type: ['string', 'null'], enum: ['owner', 'developer', 'analyst', null], description: 'Your role in the account.' },
});

const CREDENTIAL = all({
  id: { type: 'string' },
  type: { type: 'string' },
  key_kind: NULLABLE_STRING,
  prefix: { type: 'string' },
  label: NULLABLE_STRING,
  status: { type: 'string' },
  created_at: DATE_TIME,
  created_by: { type: ['string', 'null'], description: 'Who issued it: an e-mail, or the issuing credential’s prefix.' },
  last_used_at: NULLABLE_DATE_TIME,
  revoked_at: NULLABLE_DATE_TIME,
});

/** GET /accounts/:account/keys. */
export const CREDENTIALS_SCHEMA = all({ data: { type: 'array', items: CREDENTIAL } });

/** An issued or rotated credential with its secret (in this answer only). */
export const ISSUED_CREDENTIAL_SCHEMA = all({ credential: CREDENTIAL, secret: { type: 'string' } });

const INVITATION = all({
  id: { type: 'string' },
  email: { type: 'string' },
  role: ROLE,
  invited_by: { type: ['string', 'null'], description: 'The inviting person’s e-mail.' },
  expires_at: DATE_TIME,
});

/** GET /accounts/:account/members. */
export const MEMBERS_SCHEMA = all({
  data: {
    type: 'array',
    items: all({ user_id: { type: 'string' }, email: NULLABLE_STRING, name: NULLABLE_STRING, role: ROLE, joined_at: DATE_TIME }),
  },
  invitations: { type: 'array', items: INVITATION },
});

/** POST /accounts/:account/invitations. */
export const INVITATION_SCHEMA = INVITATION;

/** PATCH /accounts/:account/members/:user. */
export const MEMBER_ROLE_SCHEMA = all({ user_id: { type: 'string' }, role: ROLE });

/** GET /accounts/:account/security-log. */
export const SECURITY_LOG_SCHEMA = all({
  data: {
    type: 'array',
    items: all({
      id: { type: 'string' },
      type: { type: 'string' },
      at: DATE_TIME,
      actor: {
        type: ['object', 'null'],
        description: 'A person (e-mail; `operator` when an operator acted) or a credential (its prefix); null: the system.',
        properties: { email: { type: 'string' }, operator: { type: 'boolean' }, credential: { type: 'string' } },
      },
      detail: { type: 'object', description: 'What the event changed (members by type).' },
      address: { type: ['string', 'null'], description: 'The network it came from, as a keyed hash: never an address.' },
      user_agent: NULLABLE_STRING,
    }),
  },
  has_more: { type: 'boolean' },
  next_cursor: NULLABLE_STRING,
});

/** GET /invitations/preview. */
export const INVITATION_INFO_SCHEMA = all({
  account_name: NULLABLE_STRING,
  email: { type: 'string' },
  role: ROLE,
  expires_at: DATE_TIME,
  invited_by: NULLABLE_STRING,
});

/** GET /sessions: the person's own sessions. */
export const SESSIONS_SCHEMA = all({
  data: {
    type: 'array',
    items: all({
      id: { type: 'string' },
      current: { type: 'boolean' },
      created_at: DATE_TIME,
      last_seen_at: DATE_TIME,
      expires_at: DATE_TIME,
      user_agent: NULLABLE_STRING,
      address: { type: ['string', 'null'], description: 'The network it was opened from, as a keyed hash.' },
    }),
  },
});

export const SIGNUP_SCHEMA = all({ status: { type: 'string', enum: ['verification_sent'] } });
export const VERIFIED_SCHEMA = all({ verified: { type: 'boolean' }, email: { type: 'string' } });
export const UNLOCKED_SCHEMA = all({ unlocked: { type: 'boolean' }, email: { type: 'string' } });
export const REAUTH_SCHEMA = all({ reauthenticated_until: DATE_TIME });
export const RESET_SENT_SCHEMA = all({ status: { type: 'string', enum: ['reset_sent'] } });
export const RESET_SCHEMA = all({ reset: { type: 'boolean' } });
export const PASSWORD_CHANGED_SCHEMA = all({ changed: { type: 'boolean' }, other_sessions_ended: { type: 'integer' } });

/** GET /accounts/:account/apps: every live grant of the account, newest first. */
export const APP_GRANTS_SCHEMA = all({
  data: {
    type: 'array',
    items: all({
      id: { type: 'string' },
      app: all({
        client_id: { type: 'string' },
        name: NULLABLE_STRING,
        redirect_hosts: { type: 'array', items: { type: 'string' } },
        disabled: { type: 'boolean' },
      }),
      granted_by: { type: ['object', 'null'], required: ['user_id', 'email'], properties: { user_id: { type: 'string' }, email: { type: 'string' } } },
      resources: {
        type: 'array',
        items: all({ resource: { type: 'string' }, label: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } } }),
      },
      scopes: { type: 'array', items: { type: 'string' } },
      offline_access: { type: 'boolean' },
      created_at: DATE_TIME,
      last_used_at: NULLABLE_DATE_TIME,
      expires_at: NULLABLE_DATE_TIME,
    }),
  },
});

/** GET /operator/publishers. */
export const OPERATOR_PUBLISHERS_SCHEMA = all({
  data: {
    type: 'array',
    items: all({
      account_id: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string', enum: ['active', 'inactive', 'provisional', 'pending'] },
      website: NULLABLE_STRING,
      markets: { type: 'array', items: { type: 'string' } },
      channels: { type: 'array', items: { type: 'string' } },
      feed_access: { type: 'boolean' },
      comparison_site: { type: 'boolean' },
      is_demo: { type: 'boolean' },
      created_at: DATE_TIME,
    }),
  },
});

/** GET /operator/publishers/:publisher/keys. */
export const OPERATOR_CREDENTIALS_SCHEMA = all({
  data: {
    type: 'array',
    items: all({ id: { type: 'string' }, type: { type: 'string' }, kind: NULLABLE_STRING, prefix: { type: 'string' }, status: { type: 'string' } }),
  },
});

/** POST /operator/keys/:id/revoke. */
export const REVOKED_CREDENTIAL_SCHEMA = all({ id: { type: 'string' }, status: { type: 'string', enum: ['revoked'] } });

/** GET /operator/audit: the operators' audit log, newest first. */
export const AUDIT_LOG_SCHEMA = all({
  data: {
    type: 'array',
    items: all({
      id: { type: 'string' },
      at: DATE_TIME,
      action: { type: 'string' },
      account_id: NULLABLE_STRING,
      actor: {
        type: 'object',
        description: 'Who acted: a person (e-mail, and the operator role when an operator), or a credential (its prefix); empty: the system.',
        properties: { email: { type: 'string' }, operator_role: { type: 'string', enum: ['support', 'admin'] }, credential: { type: 'string' } },
      },
      detail: { type: 'object', description: 'What the act changed (members by action).' },
      request_id: NULLABLE_STRING,
      address_hash: { type: ['string', 'null'], description: 'The network it came from, as a keyed hash.' },
    }),
  },
  has_more: { type: 'boolean' },
  next_cursor: NULLABLE_STRING,
});

const MERCHANT = all({ id: { type: 'integer' }, name: { type: 'string' }, domains: { type: 'array', items: { type: 'string' } } });

/** GET /operator/merchants. */
export const OPERATOR_MERCHANTS_SCHEMA = all({ data: { type: 'array', items: MERCHANT } });

/** POST /operator/merchants. */
export const OPERATOR_MERCHANT_SCHEMA = MERCHANT;

const PROGRAM_STATUS = { type: 'string', enum: ['active', 'paused', 'closed'] };

/** GET /operator/programs. */
export const OPERATOR_PROGRAMS_SCHEMA = all({
  data: {
    type: 'array',
    items: all({
      id: { type: 'integer' },
      name: { type: 'string' },
      merchant: all({ id: { type: 'integer' }, name: NULLABLE_STRING }),
      status: PROGRAM_STATUS,
      joinable: { type: 'boolean' },
      auto_approve: { type: 'boolean' },
      countries: { type: 'array', items: { type: 'string' } },
      currency: { type: 'string' },
      commission_rate: { type: ['string', 'null'], description: 'A fraction of the sale (0.08: 8%), a decimal string.' },
      commission_fixed: { type: ['string', 'null'], description: "A fixed amount per sale in the program's currency, a decimal string." },
      cookie_days: { type: ['integer', 'null'] },
      default_landing_url: { type: 'string' },
    }),
  },
});

/** POST /operator/programs. */
export const OPERATOR_CREATED_PROGRAM_SCHEMA = all({
  id: { type: 'integer' },
  name: { type: 'string' },
  merchant_id: { type: 'integer' },
  status: PROGRAM_STATUS,
  countries: { type: 'array', items: { type: 'string' } },
  currency: { type: 'string' },
});

/** POST /operator/publishers/:publisher/approve and /reject. */
export const REVIEWED_PUBLISHER_SCHEMA = all({ account_id: { type: 'string' }, status: { type: 'string', enum: ['active', 'inactive'] } });

/** POST /operator/publishers/:publisher/deliveries/:id/redeliver (`all`: every dead one). */
export const REDELIVERED_SCHEMA = all({ redelivered: { type: 'integer' }, ids: { type: 'array', items: { type: 'string' } } });
