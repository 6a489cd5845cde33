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
