/** Response schemas of the postback configuration and its deliveries (the API's and the portal's OpenAPI documents). */
export const POSTBACK_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    configured: { type: 'boolean' },
    url: { type: ['string', 'null'] },
    http_method: { type: ['string', 'null'], enum: ['GET', 'POST', null] },
    event_types: { type: 'array', items: { type: 'string' } },
    active: { type: 'boolean' },
    has_secret: { type: 'boolean' },
    secret_prefix: { type: ['string', 'null'], description: 'The first characters of the signing secret, never the secret.' },
    previous_secret_valid_until: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'During a rotation: until when the previous secret also signs deliveries.',
    },
    consecutive_failures: {
      type: 'integer',
      description: 'Failed deliveries in a row (a success resets it); POSTBACK_BREAKER_FAILURES of them pause deliveries.',
    },
    paused_until: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'While deliveries are paused after failures in a row: until when (then one probe delivery decides). Saving the configuration resumes them.',
    },
    created_at: { type: ['string', 'null'], format: 'date-time' },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
    secret: { type: 'string', description: 'Only in the answer that created it (PUT 201, secret rotation).' },
  },
};

export const POSTBACK_DELIVERY_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'X-CW-Delivery: the same on every retry.' },
    event: { type: 'string' },
    conversion_id: { type: ['string', 'null'] },
    test: { type: 'boolean' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed', 'dead'] },
    attempts: { type: 'integer' },
    last_response_status: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    last_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    last_duration_ms: { type: ['integer', 'null'], description: 'How long the last attempt took, in milliseconds.' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    paused_until: {
      type: ['string', 'null'],
      format: 'date-time',
      description: "Set while the receiver's failures in a row hold this delivery back (no attempt is counted meanwhile).",
    },
    created_at: { type: 'string', format: 'date-time' },
  },
};

/** The answer to a test event: its delivery (`delivery_id` as well as `id`, the same value). */
export const POSTBACK_TEST_DELIVERY_SCHEMA = {
  ...POSTBACK_DELIVERY_SCHEMA,
  properties: { delivery_id: { type: 'string' }, ...POSTBACK_DELIVERY_SCHEMA.properties },
};
