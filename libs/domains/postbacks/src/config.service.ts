/**
 * The postback configuration as publishers read it and as the portal (portal API token) writes
 * it. A publisher API key reads, never writes (403 postback_write_requires_portal), so a leaked
 * key cannot redirect conversions. The signing secret is shown once, when created or rotated.
 */
import { ApiError } from '@cw/errors';
import { WRITERS, type Policy, type Principal } from '@cw/auth';
import { actorOf } from '@cw/audit';
import { DEFAULT_POSTBACK_EVENT_TYPES, EVENT_TYPES } from '@cw/events-feed';
import type { PostbackConfigDoc } from './data/postback-config.schema';
import { useCase, type InputOf } from '@cw/usecase';
import { newSigningSecret, seal } from './secret-box';
import { validateTarget, type Resolver } from './target';
import { own, type PostbacksDeps } from './deps';

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Publisher API keys and the portal token read it (as the portal's settings page does). */
const READ_POSTBACK_POLICY: Policy = { budget: 'postbacks', credentials: ['api_key', 'portal_token'], scope: 'postbacks:read' };
/**
 * Writes accept the portal token and people in the portal (owners and developers, the password given
 * again); API keys get through only to be told they cannot write.
 */
const WRITE_POSTBACK_POLICY: Policy = { budget: 'postbacks', credentials: ['api_key', 'portal_token'], allowDemo: true, roles: WRITERS, reauthenticate: true };

export const POSTBACK_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
      description:
        'https URL; macros {subid} {commission} {currency} {status} {event} {conversion_id} {program_id} {campaign_id} {click_id}. For events that are not sale events (payout.paid, payout.failed) only {event} has a value (`paid`, `failed`); the sale macros are empty.',
    },
    http_method: { type: 'string', enum: ['GET', 'POST'], default: 'POST' },
    event_types: {
      type: 'array',
      minItems: 1,
      maxItems: EVENT_TYPES.length,
      uniqueItems: true,
      items: { type: 'string', enum: [...EVENT_TYPES] },
      default: [...DEFAULT_POSTBACK_EVENT_TYPES],
      description: 'The sale events by default; payout.paid and payout.failed only when listed (opt-in).',
    },
    active: { type: 'boolean', default: true },
  },
} as const;

type ConfigRow = PostbackConfigDoc & { _id: string };

const secretPrefix = (secret: string) => `${secret.slice(0, 'whsec_'.length + 4)}…`;

export function postbackView(c: ConfigRow | null) {
  return {
    configured: !!c,
    url: c?.url ?? null,
    http_method: c?.http_method ?? null,
    event_types: c?.event_types ?? [],
    active: c?.active ?? false,
    has_secret: !!c,
    secret_prefix: c?.secret_prefix ?? null,
    previous_secret_valid_until: c?.previous_valid_until && c.previous_valid_until > new Date() ? c.previous_valid_until : null,
    consecutive_failures: c?.consecutive_failures ?? 0,
    paused_until: c?.paused_until && c.paused_until > new Date() ? c.paused_until : null,
    created_at: c?.created_at ?? null,
    updated_at: c?.updated_at ?? null,
  };
}

function requirePortal(principal: Principal): void {
  if (principal.type !== 'portal_token' && principal.type !== 'portal_session') {
    throw new ApiError({
      code: 'postback_write_requires_portal',
      detail: 'Postback changes need the portal API token (Authorization: Bearer ptl_…, issued with the account); publisher API keys cannot change them.',
    });
  }
}

export const getPostbackConfig = useCase(READ_POSTBACK_POLICY, async function getPostbackConfig(deps: PostbacksDeps, principal: Principal) {
  return postbackView(await own(deps).PostbackConfig.findById(principal.publisher._id).lean<ConfigRow>());
});

/** Creates (with a new secret, shown once) or updates (secret unchanged, not shown) the configuration. */
export const putPostbackConfig = useCase(
  WRITE_POSTBACK_POLICY,
  async function putPostbackConfig(deps: PostbacksDeps, principal: Principal, input: InputOf<typeof POSTBACK_INPUT>, opts: { resolve?: Resolver } = {}) {
    requirePortal(principal);
    const url = await validateTarget(input.url, { allowInsecure: deps.config.postbackAllowInsecure, resolve: opts.resolve });
    const id = principal.publisher._id;
    const now = new Date();
    const fields = { url, http_method: input.http_method, event_types: input.event_types, active: input.active, updated_at: now };
    // A saved change (a fixed receiver, usually) closes the circuit breaker: the next due delivery goes out.
    const updated = await own(deps)
      .PostbackConfig.findOneAndUpdate(
        { _id: id },
        { $set: { ...fields, consecutive_failures: 0, paused_until: null, probe_until: null } },
        { returnDocument: 'after' },
      )
      .lean<ConfigRow>();
    const changed = { url_host: new URL(url).host, http_method: input.http_method, event_types: input.event_types, active: input.active };
    if (updated) {
      await deps.data.audit.record({ account_id: id, type: 'postback_changed', ...actorOf(principal), detail: changed });
      return { created: false, view: postbackView(updated) };
    }
    const secret = newSigningSecret();
    try {
      await own(deps).PostbackConfig.create({
        _id: id,
        ...fields,
        secret: seal(deps.config.keys, secret),
        secret_prefix: secretPrefix(secret),
        created_at: now,
      });
    } catch (e) {
      // A concurrent first write won: this one is an update of it.
      if ((e as { code?: number }).code !== 11000) throw e;
      return putPostbackConfig(deps, principal, input, opts);
    }
    await deps.data.audit.record({ account_id: id, type: 'postback_changed', ...actorOf(principal), detail: { ...changed, created: true } });
    return { created: true, view: { ...postbackView(await own(deps).PostbackConfig.findById(id).lean<ConfigRow>()), secret } };
  },
  POSTBACK_INPUT,
);

/** A new signing secret (shown once); the previous one keeps verifying for 24 hours. */
export const rotatePostbackSecret = useCase(WRITE_POSTBACK_POLICY, async function rotatePostbackSecret(deps: PostbacksDeps, principal: Principal) {
  requirePortal(principal);
  const id = principal.publisher._id;
  const current = await own(deps).PostbackConfig.findById(id).lean<ConfigRow>();
  if (!current) throw new ApiError({ code: 'not_found', detail: 'No postback is configured: create one with PUT /postback/ first.' });
  const secret = newSigningSecret();
  const now = new Date();
  const rotated = await own(deps)
    .PostbackConfig.findOneAndUpdate(
      { _id: id },
      {
        $set: {
          secret: seal(deps.config.keys, secret),
          secret_prefix: secretPrefix(secret),
          previous_secret: current.secret,
          previous_valid_until: new Date(now.getTime() + ROTATION_OVERLAP_MS),
          updated_at: now,
        },
      },
      { returnDocument: 'after' },
    )
    .lean<ConfigRow>();
  await deps.data.audit.record({ account_id: id, type: 'postback_secret_rotated', ...actorOf(principal), detail: { secret_prefix: secretPrefix(secret) } });
  return { ...postbackView(rotated), secret };
});
