/** Instant-monetization applications: through the monetize lib's operator use cases (audited). */
import { APPLICATION_STATUSES, operatorListApplications, operatorReviewApplication, type ApplicationStatus } from '@cw/monetize';
import { int, str, UsageError, type CommandSpec } from './shared';

export const MONETIZE_COMMANDS: Record<string, CommandSpec> = {
  'monetize:list': {
    summary: 'List instant-monetization applications, newest first (claims to review: --status under_review)',
    options: { status: { type: 'string', doc: APPLICATION_STATUSES.join('|') }, limit: { type: 'string', doc: 'at most this many (default 100)' } },
    run: async (deps, o) => {
      const status = str(o, 'status');
      if (status !== undefined && !(APPLICATION_STATUSES as readonly string[]).includes(status))
        throw new UsageError(`--status must be one of ${APPLICATION_STATUSES.join(', ')}`);
      return operatorListApplications(deps, deps.operator, { status: status as ApplicationStatus | undefined, limit: int(o, 'limit') });
    },
  },
  'monetize:approve': {
    summary:
      'Approve a claimed application: it becomes a publisher account keeping its links, clicks and conversions (claimed in the portal: its owner issues keys there; otherwise its API key is shown once)',
    options: { id: { type: 'string', required: true, doc: 'application id (app_…)' } },
    run: (deps, o) => operatorReviewApplication(deps, deps.operator, { id: str(o, 'id')!, decision: 'approve' }),
  },
  'monetize:reject': {
    summary: 'Reject an application: its provisional publisher is deactivated',
    options: { id: { type: 'string', required: true, doc: 'application id (app_…)' }, note: { type: 'string', doc: 'why (kept on the application)' } },
    run: (deps, o) => operatorReviewApplication(deps, deps.operator, { id: str(o, 'id')!, decision: 'reject', note: str(o, 'note') }),
  },
};
