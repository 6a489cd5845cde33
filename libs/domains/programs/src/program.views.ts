/** A program as the API shows it to the caller (OpenAPI and the MCP tools' output schema). */
export const PROGRAM_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'merchant', 'campaign_id', 'relationship', 'status'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    merchant: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    campaign_id: { type: 'integer', description: 'The campaign (merchant) id links and clicks are filtered by.' },
    relationship: { type: 'string', enum: ['approved', 'pending', 'rejected', 'available'], description: "The caller's assignment." },
    status: { type: 'string', enum: ['active', 'paused', 'closed'] },
    description: { type: 'string' },
    category: { type: 'string' },
    countries: { type: 'array', items: { type: 'string' } },
    currency: { type: 'string' },
    commission: { type: 'string' },
    cookie_days: { type: 'integer' },
    joinable: { type: 'boolean' },
    auto_approve: { type: 'boolean', description: 'Applications are approved at once.' },
    default_landing_url: { type: 'string' },
    allowed_domains: { type: 'array', items: { type: 'string' } },
  },
};

/** The answer to an application (POST /programs/apply/). */
export const APPLICATION_SCHEMA = {
  type: 'object',
  required: ['program_id', 'status', 'created', 'applied_at', 'decided_at', 'program'],
  properties: {
    program_id: { type: 'integer' },
    status: { type: 'string', enum: ['approved', 'pending', 'rejected'] },
    created: { type: 'boolean', description: 'False when an assignment already existed.' },
    applied_at: { type: ['string', 'null'], format: 'date-time' },
    decided_at: { type: ['string', 'null'], format: 'date-time' },
    program: PROGRAM_SCHEMA,
  },
};
