/** The one table that decides every error's HTTP status. Callers pick a code, never a status. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  malformed_request: 400,
  unknown_parameter: 400,
  repeated_parameter: 400,
  invalid_gtin: 400,
  country_required: 400,
  invalid_json: 400,
  invalid_body: 400,
  idempotency_key_invalid: 400,
  page_too_deep: 400,
  not_authenticated: 401,
  feed_access_inactive: 403,
  credential_not_allowed: 403,
  postback_write_requires_portal: 403,
  program_not_approved: 403,
  program_not_joinable: 403,
  forbidden: 403,
  feed_url_invalid: 403,
  feed_url_expired: 403,
  not_found: 404,
  click_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  conflict: 409,
  invalid_transition: 409,
  cursor_expired: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  click_expired: 422,
  click_is_bot: 422,
  no_merchant_urls: 422,
  rate_limited: 429,
  too_many_streams: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}
