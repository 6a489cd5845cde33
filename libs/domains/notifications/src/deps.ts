import type { AuditData } from '@cw/audit';
import type { AuthData } from '@cw/auth';
import type { LedgerData } from '@cw/ledger';
import type { LinksData } from '@cw/links';
import type { Mailer } from '@cw/mail';
import type { PayoutsDeps } from '@cw/payouts';
import type { PeopleData } from '@cw/people';
import type { StatsDeps } from '@cw/stats';
import type { UseCaseDeps } from '@cw/usecase';
import { notificationsModels, type NotificationsData, type NotificationsModels } from './data/notifications.data';

/** Choices and queueing: its own data, the people of an account, the accounts. */
export type NotifyDeps = { data: { notifications: NotificationsData; people: PeopleData; auth: AuthData; audit: AuditData } };

/** Sending (the worker's mail job): rendering reads payouts, the ledger, the stats read model and links; the mailer sends. */
export type NotificationsDeps = UseCaseDeps<NotifyDeps['data'] & StatsDeps['data'] & PayoutsDeps['data'] & { ledger: LedgerData; links: LinksData }> & {
  mailer: Mailer;
};

export const own = (deps: { data: { notifications: NotificationsData } }): NotificationsModels => notificationsModels(deps.data.notifications);
