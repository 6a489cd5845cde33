/**
 * Turning a kind off from a mail's link, without signing in. `unsubscribeInfo` (the page's GET)
 * only reads the token: mail scanners open links, so a GET never changes anything. `unsubscribe`
 * (the page's button, and the one-click POST of RFC 8058) turns the kind off. A token that is not
 * genuine is 400 `invalid_unsubscribe_link`, the same whoever it names; a genuine one answers the
 * same whether or not its person still exists (turning off a kind of nobody changes nothing).
 */
import { ApiError } from '@cw/errors';
import { KIND_LABELS, type NotificationKind } from './kinds';
import type { NotifyDeps } from './deps';
import { readUnsubscribeToken } from './unsubscribe-token';

export const UNSUBSCRIBE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 200, description: 'The `t` of the mail’s unsubscribe link.' } },
} as const;

const invalid = () =>
  new ApiError({
    code: 'invalid_unsubscribe_link',
    detail:
      'This unsubscribe link is not valid (it was changed or cut short). Use the link in the mail as it is, or sign in and change Settings, Notifications.',
    errors: [{ param: 'token', detail: 'is not a valid unsubscribe link' }],
  });

function read(deps: Pick<NotifyDeps, never> & { config: { keys: Parameters<typeof readUnsubscribeToken>[0] } }, token: unknown) {
  const t = readUnsubscribeToken(deps.config.keys, token);
  if (!t) throw invalid();
  return t;
}

export interface UnsubscribeView {
  kind: NotificationKind;
  label: string;
  description: string;
}

/** What the link would turn off (changes nothing). */
export function unsubscribeInfo(deps: { config: { keys: Parameters<typeof readUnsubscribeToken>[0] } }, token: unknown): UnsubscribeView {
  const { kind } = read(deps, token);
  return { kind, ...KIND_LABELS[kind] };
}

/** Turns the link's kind off for its person. */
export async function unsubscribe(
  deps: NotifyDeps & { config: { keys: Parameters<typeof readUnsubscribeToken>[0] } },
  token: unknown,
  now = new Date(),
): Promise<UnsubscribeView & { enabled: false }> {
  const { userId, kind } = read(deps, token);
  if (await deps.data.people.userById(userId)) await deps.data.notifications.choose(userId, { [kind]: false }, now);
  return { kind, ...KIND_LABELS[kind], enabled: false };
}
