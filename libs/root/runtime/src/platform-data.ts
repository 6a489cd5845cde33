/**
 * The composition root of the platform's data: every domain's schemas registered on one
 * connection, and the handle each domain lib builds over its own models. Services, the dev stack,
 * the tests and the operator CLI all open their data here (`openPlatformData`), so every process
 * has the same collections, guards and hooks.
 *
 * `data` (one handle per domain) is what use cases receive; `models` (every model, by name) is for
 * what works on the database as a whole: the index migration and check, sharding, the seed, the
 * operator CLI and tests that read raw rows. No lib receives `models`.
 */
import type { Connection, Model } from 'mongoose';
import { authDomain } from '@cw/auth';
import { auditDomain } from '@cw/audit';
import { peopleDomain } from '@cw/people';
import { catalogDomain } from '@cw/catalog';
import { codesDomain } from '@cw/codes';
import { conversionsDomain } from '@cw/conversions';
import { eventsFeedDomain } from '@cw/events-feed';
import { countWrittenChanges, statsDomain } from '@cw/stats';
import { defineDomain, type Domain, type ModelSet } from '@cw/db';
import { feedsDomain } from '@cw/feeds';
import { payoutEventSource, payoutsDomain } from '@cw/payouts';
import { ledgerDomain, syncLedgerAccount } from '@cw/ledger';
import { inquiriesDomain, inquiryEventSource } from '@cw/inquiries';
import { idempotencyDomain } from '@cw/idempotency';
import { noticeBreakerOpen, noticeInquiryDecided, noticeReversal, notificationsDomain } from '@cw/notifications';
import { linksDomain } from '@cw/links';
import { monetizeDomain } from '@cw/monetize';
import { oauthDomain } from '@cw/oauth';
import { offersDomain } from '@cw/offers';
import { postbacksDomain } from '@cw/postbacks';
import { programsDomain } from '@cw/programs';
import { trendingDomain } from '@cw/trending';
import { agendaJobSchema } from './data/agenda-job.schema';

/** The worker's Agenda jobs: declared for their indexes; Agenda reads and writes them itself. */
const jobsDomain = defineDomain('jobs', { AgendaJob: [agendaJobSchema, 'jobs'] }, (_m: { AgendaJob: Model<Record<string, unknown>> }) => null);

/**
 * Every domain opened on a connection, in order: the one table a new domain is added to. Its handle
 * joins `PlatformData` under the domain's name and its models join `Models`, both derived from
 * this list (a domain whose handle is null, the jobs, has models only).
 */
const DOMAINS = [
  authDomain,
  programsDomain,
  catalogDomain,
  linksDomain,
  codesDomain,
  conversionsDomain,
  eventsFeedDomain,
  statsDomain,
  ledgerDomain,
  payoutsDomain,
  inquiriesDomain,
  postbacksDomain,
  feedsDomain,
  offersDomain,
  monetizeDomain,
  trendingDomain,
  idempotencyDomain,
  peopleDomain,
  notificationsDomain,
  auditDomain,
  oauthDomain,
  jobsDomain,
] as const;

type Registered = (typeof DOMAINS)[number];
type NameOf<D> = D extends Domain<infer N, ModelSet, infer H> ? (H extends null ? never : N) : never;
type HandleOf<D> = D extends Domain<string, ModelSet, infer H> ? H : never;
type ModelsOf<D> = D extends Domain<string, infer M, unknown> ? M : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every domain's handle, by the domain's name: what use cases receive as `deps.data`. */
export type PlatformData = { [D in Registered as NameOf<D>]: HandleOf<D> };

/** Every model, by name (for the migration, the seed, the CLI and tests; never for a lib). */
export type Models = Intersection<ModelsOf<Registered>>;

/** Opens every domain's data on `conn` (its models registered once per connection). */
export function openPlatformData(conn: Connection): { data: PlatformData; models: Models } {
  const data: Record<string, unknown> = {};
  const models: ModelSet = {};
  for (const domain of DOMAINS) {
    const opened = domain.open(conn);
    if (opened.handle !== null) data[domain.name] = opened.handle;
    Object.assign(models, opened.models);
  }
  const platform = data as unknown as PlatformData;
  // A conversion change is counted into the stats read model by its write, through the lifecycle's
  // port (docs/decisions/0046-stats-read-contract.md): the sales data never imports the stats model.
  // The ledger, a consumer of the same changes (its own checkpoint), books them right after: a
  // balance shows a change at once; what fails here the worker's pass books.
  platform.conversions.countChangesWith(async (publisherId) => {
    await countWrittenChanges({ data: platform }, publisherId);
    await syncLedgerAccount({ data: platform }, publisherId);
  });
  // Events of other domains join the accounts' logs through the feed's event-source port
  // (libs/domains/events-feed/README.md): the feed never imports them. Payouts paid or failed:
  platform.eventsFeed.addEventSource(payoutEventSource(platform));
  platform.eventsFeed.addEventSource(inquiryEventSource(platform));
  // Notices other domains raise without knowing people (@cw/notifications): a reversal booked after
  // its commission was paid out, a postback endpoint whose breaker opened, an inquiry decided. Their mail is a job.
  platform.ledger.onReversal(async (r) => void (await noticeReversal({ data: platform }, r)));
  platform.postbacks.onBreakerOpen(async (publisherId) => void (await noticeBreakerOpen({ data: platform }, publisherId)));
  // An inquiry decided wherever (the tracker's merchant, the portal's or CLI's operator, the worker's window job): its owners' mail.
  platform.inquiries.onDecided(async (n) => void (await noticeInquiryDecided({ data: platform }, n.inquiry)));
  return { data: platform, models: models as unknown as Models };
}
