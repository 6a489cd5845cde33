/** The audit log: every operator act and every security-relevant act of the accounts, read through the audit lib (support reads it). */
import { auditLog } from '@cw/audit';
import { int, str, UsageError, type CommandSpec } from './shared';

export const AUDIT_COMMANDS: Record<string, CommandSpec> = {
  'audit:list': {
    summary: "The audit log, newest first: operator acts and accounts' security events (append-only; nothing edits or deletes an entry)",
    options: {
      account: { type: 'string', doc: 'only this account id' },
      actor: { type: 'string', doc: "only this actor: an e-mail (a person or an operator) or a credential's display prefix" },
      action: { type: 'string', doc: 'only this act, e.g. credential_revoked, publisher_reviewed, postback_redelivered' },
      since: { type: 'string', doc: 'only from this ISO date or date-time on' },
      cursor: { type: 'string', doc: 'continue after this entry (next_cursor of the previous page)' },
      limit: { type: 'string', doc: 'at most this many (default 100, at most 1000)' },
    },
    run: async (deps, o) => {
      const sinceRaw = str(o, 'since');
      const since = sinceRaw === undefined ? undefined : new Date(sinceRaw);
      if (since && Number.isNaN(since.getTime())) throw new UsageError(`--since must be an ISO date or date-time, got "${sinceRaw}"`);
      const limit = int(o, 'limit');
      if (limit !== undefined && (limit < 1 || limit > 1000)) throw new UsageError('--limit must be 1 to 1000');
      return auditLog(deps, deps.operator, {
        account: str(o, 'account'),
        actor: str(o, 'actor'),
        action: str(o, 'action'),
        since,
        cursor: str(o, 'cursor'),
        limit,
      });
    },
  },
};
