/** Operator actions on publisher accounts (the operator CLI and the seed use these). */
import { randomBytes } from 'node:crypto';
import { ApiError } from '@cw/errors';
import type { PublisherInput } from '@cw/auth';
import { DISPLAY_TEXT_PROBLEM, isDisplayText } from '@cw/validation';
import type { AccountDeps } from './deps';

export const CHANNELS = ['content', 'coupon', 'social'] as const;

const invalid = (param: string, detail: string) =>
  new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });

/** Checks and creates accounts (id `pub_…`, a name of 1 to 100 characters as people read it, known channels, ISO markets) in one write. */
export async function createPublishers(deps: Pick<AccountDeps, 'data'>, accounts: Array<Omit<PublisherInput, '_id'> & { _id?: string }>): Promise<string[]> {
  const rows = accounts.map((a) => {
    const id = a._id ?? `pub_${randomBytes(6).toString('hex')}`;
    if (!/^pub_[a-z0-9_]{3,40}$/.test(id)) throw invalid('id', `must look like pub_<lowercase letters, digits, _>, got "${id}"`);
    // The operator's name for it, as the portal's sign-up and settings take names (mails and pages show it).
    if (typeof a.name !== 'string' || a.name.length < 1 || a.name.length > 100) throw invalid('name', 'must be 1 to 100 characters');
    if (!isDisplayText(a.name)) throw invalid('name', DISPLAY_TEXT_PROBLEM);
    for (const c of a.channels ?? [])
      if (!(CHANNELS as readonly string[]).includes(c)) throw invalid('channels', `"${c}" is not one of ${CHANNELS.join(', ')}`);
    for (const m of a.markets ?? []) if (!/^[A-Z]{2}$/.test(m)) throw invalid('markets', `"${m}" is not an ISO alpha-2 country`);
    return { ...a, _id: id };
  });
  for (const r of rows) if (await deps.data.auth.publisherById(r._id)) throw new ApiError({ code: 'conflict', detail: `publisher ${r._id} already exists` });
  await deps.data.auth.createPublishers(rows);
  return rows.map((r) => r._id);
}

/** Activates or deactivates an account; applies to its next request. */
export async function setAccountStatus(deps: Pick<AccountDeps, 'data'>, id: string, status: 'active' | 'inactive'): Promise<void> {
  if (!(await deps.data.auth.updatePublisher(id, { status }))) throw new ApiError({ code: 'not_found', detail: `publisher ${id} does not exist` });
}

/**
 * The network's review of an account signed up in the portal: `pending` becomes `active` (its people
 * issue their keys in the portal) or, rejected, `inactive`. Only pending accounts are reviewed (409).
 */
export async function reviewPublisher(
  deps: Pick<AccountDeps, 'data'>,
  id: string,
  decision: 'approve' | 'reject',
): Promise<{ account_id: string; status: string }> {
  const p = await deps.data.auth.publisherById(id);
  if (!p) throw new ApiError({ code: 'not_found', detail: `publisher ${id} does not exist` });
  if (p.status !== 'pending') throw new ApiError({ code: 'invalid_transition', detail: `publisher ${id} is ${p.status}; only pending accounts are reviewed` });
  const status = decision === 'approve' ? 'active' : 'inactive';
  await deps.data.auth.updatePublisher(id, decision === 'approve' ? { status, feed_access: true } : { status });
  return { account_id: id, status };
}
