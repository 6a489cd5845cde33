/**
 * What open dynamic registration (RFC 7591) takes. Anyone may register, so nothing an app sends
 * may make the consent page read like the portal's own text or push its buttons away, and no app
 * is ever handed a secret:
 *
 * - `client_name`: at most 100 characters of display text (no control characters, line breaks or
 *   bidirectional controls); absent, the app is named "Unnamed app";
 * - every list at most 10 entries (`redirect_uris`, `post_logout_redirect_uris`, ...), every
 *   string at most 2,000 characters (`client_uri`, `logo_uri`, `policy_uri`, `tos_uri`, each URI);
 * - public clients only: `token_endpoint_auth_method` none, and nothing that needs a shared
 *   secret (HMAC signing, symmetric encryption); a `client_secret` sent is dropped.
 *
 * A refusal names the field: the provider answers 400 `invalid_client_metadata` with it.
 */
import { DISPLAY_TEXT_PROBLEM, isDisplayText, toDisplayText } from '@cw/validation';

export const REGISTRATION_LIMITS = { clientName: 100, listEntries: 10, stringLength: 2000 } as const;
/** The name of an app that registered without one. */
export const DEFAULT_CLIENT_NAME = 'Unnamed app';

/** Metadata whose value would make the provider issue a client secret (oidc-provider's `Client.needsSecret`). */
const HMAC_SIGNING = [
  'id_token_signed_response_alg',
  'request_object_signing_alg',
  'token_endpoint_auth_signing_alg',
  'userinfo_signed_response_alg',
  'introspection_signed_response_alg',
  'authorization_signed_response_alg',
];
const SYMMETRIC_ENCRYPTION = [
  'id_token_encrypted_response_alg',
  'request_object_encryption_alg',
  'userinfo_encrypted_response_alg',
  'introspection_encrypted_response_alg',
  'authorization_encrypted_response_alg',
];

const length = (s: string) => [...s].length;

function clientNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'client_name must be a string';
  if (!name.trim()) return 'client_name must not be blank';
  if (length(name) > REGISTRATION_LIMITS.clientName) return `client_name must be at most ${REGISTRATION_LIMITS.clientName} characters`;
  if (!isDisplayText(name)) return `client_name ${DISPLAY_TEXT_PROBLEM}`;
  return undefined;
}

function sizeProblem(field: string, value: unknown): string | undefined {
  const { listEntries, stringLength } = REGISTRATION_LIMITS;
  if (typeof value === 'string' && length(value) > stringLength) return `${field} must be at most ${stringLength} characters`;
  if (!Array.isArray(value)) return undefined;
  // Worded so the provider answers invalid_client_metadata for every field (it turns a description starting "redirect_uris" into invalid_redirect_uri).
  if (value.length > listEntries) return `too many entries in ${field}: at most ${listEntries}`;
  if (value.some((v) => typeof v === 'string' && length(v) > stringLength)) return `an entry of ${field} is longer than ${stringLength} characters`;
  return undefined;
}

function secretProblem(metadata: Record<string, unknown>): string | undefined {
  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    return 'token_endpoint_auth_method must be none: only public clients may register, and they get no client_secret';
  for (const field of HMAC_SIGNING) {
    const alg = metadata[field];
    if (typeof alg === 'string' && alg.startsWith('HS')) return `${field} ${alg} needs a client secret: only public clients may register`;
  }
  for (const field of SYMMETRIC_ENCRYPTION) {
    const alg = metadata[field];
    if (typeof alg === 'string' && /^(A|dir$)/.test(alg)) return `${field} ${alg} needs a client secret: only public clients may register`;
  }
  return undefined;
}

/** Why a registration may not be taken as sent (undefined: it may), naming the field. */
export function registrationProblem(metadata: Record<string, unknown>): string | undefined {
  if (metadata.client_name !== undefined && metadata.client_name !== null) {
    const problem = clientNameProblem(metadata.client_name);
    if (problem) return problem;
  }
  for (const [field, value] of Object.entries(metadata)) {
    const problem = sizeProblem(field, value);
    if (problem) return problem;
  }
  return secretProblem(metadata);
}

/**
 * Applies the policy to a registration's metadata in place: throws `refuse(problem)` when it may
 * not be registered; else names an unnamed app and drops any client secret.
 */
export function applyRegistrationPolicy(metadata: Record<string, unknown>, refuse: (problem: string) => Error): void {
  const problem = registrationProblem(metadata);
  if (problem) throw refuse(problem);
  if (metadata.client_name === undefined || metadata.client_name === null) metadata.client_name = DEFAULT_CLIENT_NAME;
  delete metadata.client_secret;
  delete metadata.client_secret_expires_at;
}

/**
 * An app's name as the portal shows it, whatever is stored (apps registered before the policy,
 * or written by hand): one line of display text, at most 100 characters (longer names end in
 * "…"); null when it has none.
 */
export function clientNameForDisplay(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const line = toDisplayText(name.replace(/\s+/gu, ' ')).trim();
  if (!line) return null;
  const chars = [...line];
  return chars.length <= REGISTRATION_LIMITS.clientName
    ? line
    : `${chars
        .slice(0, REGISTRATION_LIMITS.clientName - 1)
        .join('')
        .trimEnd()}…`;
}
