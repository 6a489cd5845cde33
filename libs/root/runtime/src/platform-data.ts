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
import { authDomain, type AuthData, type CredentialDoc, type CredentialUseDoc, type PublisherDoc } from '@cw/auth';
import { auditDomain, type AuditData, type SecurityEventDoc } from '@cw/audit';
import { peopleDomain, type AccountMemberDoc, type MailTokenDoc, type PeopleData, type SessionDoc, type UserDoc } from '@cw/people';
import { catalogDomain, type CatalogData, type CatalogModels } from '@cw/catalog';
import { codesDomain, type CodeDoc, type CodesData } from '@cw/codes';
import { conversionsDomain, type AttributionSpendDoc, type ConversionDoc, type ConversionsData } from '@cw/conversions';
import { eventsFeedDomain, type EventLogHeadDoc, type EventsFeedData, type SaleEventDoc } from '@cw/events-feed';
import { countWrittenChanges, statsDomain, type StatDoc, type StatRollupDoc, type StatTxnDoc, type StatsData } from '@cw/stats';
import { defineDomain, type ModelSet } from '@cw/db';
import { feedsDomain, type FeedsData } from '@cw/feeds';
import {
  payoutEventSource,
  payoutsDomain,
  type FxRatesDoc,
  type PayoutDoc,
  type PayoutProfileDoc,
  type PayoutRunDoc,
  type PayoutsData,
  type StatementDoc,
} from '@cw/payouts';
import { ledgerDomain, syncLedgerAccount, type LedgerBalanceDoc, type LedgerData, type LedgerTxnDoc } from '@cw/ledger';
import { inquiriesDomain, inquiryEventSource, type InquiriesData, type InquiryDoc } from '@cw/inquiries';
import { idempotencyDomain, type IdempotencyData, type IdempotencyDoc } from '@cw/idempotency';
import {
  noticeBreakerOpen,
  noticeInquiryDecided,
  noticeReversal,
  notificationsDomain,
  type NotificationPreferenceDoc,
  type NotificationsData,
  type NotificationSendDoc,
} from '@cw/notifications';
import { linksDomain, type ClickBucketDoc, type ClickCompactionDoc, type ClickDoc, type LinkDoc, type LinksData } from '@cw/links';
import { monetizeDomain, type MonetizeApplicationDoc, type MonetizeData } from '@cw/monetize';
import { oauthDomain, type OAuthData, type OAuthRecordDoc } from '@cw/oauth';
import { offersDomain, type OfferDoc, type OffersData } from '@cw/offers';
import { postbacksDomain, type PostbackConfigDoc, type PostbackDeliveryDoc, type PostbacksData } from '@cw/postbacks';
import { programsDomain, type MembershipDoc, type MerchantDoc, type ProgramDoc, type ProgramsData } from '@cw/programs';
import { trendingDomain, type TrendingData, type TrendingPlanDoc } from '@cw/trending';
import { agendaJobSchema } from './data/agenda-job.schema';

/** The worker's Agenda jobs: declared for their indexes; Agenda reads and writes them itself. */
const jobsDomain = defineDomain('jobs', { AgendaJob: [agendaJobSchema, 'jobs'] }, () => null);

/** Every domain's handle: what use cases receive as `deps.data`. */
export interface PlatformData {
  auth: AuthData;
  programs: ProgramsData;
  catalog: CatalogData;
  links: LinksData;
  codes: CodesData;
  conversions: ConversionsData;
  eventsFeed: EventsFeedData;
  stats: StatsData;
  ledger: LedgerData;
  payouts: PayoutsData;
  inquiries: InquiriesData;
  postbacks: PostbacksData;
  feeds: FeedsData;
  offers: OffersData;
  monetize: MonetizeData;
  trending: TrendingData;
  idempotency: IdempotencyData;
  people: PeopleData;
  notifications: NotificationsData;
  audit: AuditData;
  oauth: OAuthData;
}

/** Every model, by name (for the migration, the seed, the CLI and tests; never for a lib). */
export interface Models extends CatalogModels {
  Publisher: Model<PublisherDoc>;
  Credential: Model<CredentialDoc>;
  CredentialUse: Model<CredentialUseDoc>;
  User: Model<UserDoc>;
  AccountMember: Model<AccountMemberDoc>;
  PortalSession: Model<SessionDoc>;
  MailToken: Model<MailTokenDoc>;
  NotificationPreference: Model<NotificationPreferenceDoc>;
  NotificationSend: Model<NotificationSendDoc>;
  SecurityEvent: Model<SecurityEventDoc>;
  Merchant: Model<MerchantDoc>;
  Program: Model<ProgramDoc>;
  Membership: Model<MembershipDoc>;
  Link: Model<LinkDoc>;
  ClickBucket: Model<ClickBucketDoc>;
  /** Click rows of the older layout (until `clicks:migrate`). */
  Click: Model<ClickDoc>;
  ClickCompaction: Model<ClickCompactionDoc>;
  Code: Model<CodeDoc>;
  Conversion: Model<ConversionDoc>;
  AttributionSpend: Model<AttributionSpendDoc>;
  SaleEvent: Model<SaleEventDoc>;
  EventLogHead: Model<EventLogHeadDoc>;
  Stat: Model<StatDoc>;
  StatTxn: Model<StatTxnDoc>;
  StatRollup: Model<StatRollupDoc>;
  LedgerTxn: Model<LedgerTxnDoc>;
  LedgerBalance: Model<LedgerBalanceDoc>;
  PayoutProfile: Model<PayoutProfileDoc>;
  PayoutRun: Model<PayoutRunDoc>;
  Payout: Model<PayoutDoc>;
  Inquiry: Model<InquiryDoc>;
  FxRates: Model<FxRatesDoc>;
  Statement: Model<StatementDoc>;
  PostbackConfig: Model<PostbackConfigDoc>;
  PostbackDelivery: Model<PostbackDeliveryDoc>;
  Offer: Model<OfferDoc>;
  MonetizeApplication: Model<MonetizeApplicationDoc>;
  TrendingPlan: Model<TrendingPlanDoc>;
  Idempotency: Model<IdempotencyDoc>;
  OAuthRecord: Model<OAuthRecordDoc>;
  AgendaJob: Model<Record<string, unknown>>;
}

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
