import type { Connection, Model } from 'mongoose';
import './access-changes';
import { guardShardKeyWrites } from './sharding';
import { applyQueryBudget } from './query-budget';
import { agendaJobSchema } from './schemas/agenda-job.schema';
import { clickSchema, type ClickDoc } from './schemas/click.schema';
import { conversionSchema, type ConversionDoc } from './schemas/conversion.schema';
import { credentialSchema, type CredentialDoc } from './schemas/credential.schema';
import { feedStateSchema, type FeedStateDoc } from './schemas/feed-state.schema';
import { idempotencySchema, type IdempotencyDoc } from './schemas/idempotency.schema';
import { linkSchema, type LinkDoc } from './schemas/link.schema';
import { monetizeApplicationSchema, type MonetizeApplicationDoc } from './schemas/monetize-application.schema';
import { membershipSchema, type MembershipDoc } from './schemas/membership.schema';
import { merchantSchema, type MerchantDoc } from './schemas/merchant.schema';
import { offerSchema, type OfferDoc } from './schemas/offer.schema';
import { postbackConfigSchema, type PostbackConfigDoc } from './schemas/postback-config.schema';
import { postbackDeliverySchema, type PostbackDeliveryDoc } from './schemas/postback-delivery.schema';
import { productSchema, type ProductDoc } from './schemas/product.schema';
import { programSchema, type ProgramDoc } from './schemas/program.schema';
import { publisherSchema, type PublisherDoc } from './schemas/publisher.schema';
import { trendingPlanSchema, type TrendingPlanDoc } from './schemas/trending-plan.schema';
import { statSchema, statTxnSchema, type StatDoc, type StatTxnDoc } from './schemas/stat.schema';
import { eventLogHeadSchema, saleEventLogSchema, type EventLogHeadDoc, type SaleEventDoc } from './schemas/sale-event.schema';

export interface Models {
  Publisher: Model<PublisherDoc>;
  Credential: Model<CredentialDoc>;
  Merchant: Model<MerchantDoc>;
  Program: Model<ProgramDoc>;
  Membership: Model<MembershipDoc>;
  Product: Model<ProductDoc>;
  Link: Model<LinkDoc>;
  Click: Model<ClickDoc>;
  Conversion: Model<ConversionDoc>;
  Idempotency: Model<IdempotencyDoc>;
  PostbackConfig: Model<PostbackConfigDoc>;
  PostbackDelivery: Model<PostbackDeliveryDoc>;
  Offer: Model<OfferDoc>;
  MonetizeApplication: Model<MonetizeApplicationDoc>;
  TrendingPlan: Model<TrendingPlanDoc>;
  FeedState: Model<FeedStateDoc>;
  SaleEvent: Model<SaleEventDoc>;
  EventLogHead: Model<EventLogHeadDoc>;
  Stat: Model<StatDoc>;
  StatTxn: Model<StatTxnDoc>;
  /** The worker's Agenda jobs: declared for their indexes; Agenda reads and writes them itself. */
  AgendaJob: Model<Record<string, unknown>>;
}

/** Each model's schema and collection. */
const COLLECTIONS = {
  Publisher: [publisherSchema, 'publishers'],
  Credential: [credentialSchema, 'credentials'],
  Merchant: [merchantSchema, 'merchants'],
  Program: [programSchema, 'programs'],
  Membership: [membershipSchema, 'program_memberships'],
  Product: [productSchema, 'products'],
  Link: [linkSchema, 'links'],
  Click: [clickSchema, 'clicks'],
  Conversion: [conversionSchema, 'conversions'],
  Idempotency: [idempotencySchema, 'idempotency_keys'],
  PostbackConfig: [postbackConfigSchema, 'postback_configs'],
  PostbackDelivery: [postbackDeliverySchema, 'postback_deliveries'],
  Offer: [offerSchema, 'offers'],
  MonetizeApplication: [monetizeApplicationSchema, 'monetize_applications'],
  TrendingPlan: [trendingPlanSchema, 'trending_plans'],
  FeedState: [feedStateSchema, 'feed_states'],
  SaleEvent: [saleEventLogSchema, 'sale_events'],
  EventLogHead: [eventLogHeadSchema, 'event_log_heads'],
  Stat: [statSchema, 'stats'],
  StatTxn: [statTxnSchema, 'stats_txns'],
  AgendaJob: [agendaJobSchema, 'jobs'],
} as const;

// Hooks go on the schemas once, before any connection compiles a model from them.
for (const [schema, collection] of Object.values(COLLECTIONS)) {
  guardShardKeyWrites(schema, collection);
  applyQueryBudget(schema);
}

/** Registers every model on the given connection (never on mongoose's default connection). */
export function createModels(conn: Connection): Models {
  return {
    Publisher: conn.model<PublisherDoc>('Publisher', ...COLLECTIONS.Publisher),
    Credential: conn.model<CredentialDoc>('Credential', ...COLLECTIONS.Credential),
    Merchant: conn.model<MerchantDoc>('Merchant', ...COLLECTIONS.Merchant),
    Program: conn.model<ProgramDoc>('Program', ...COLLECTIONS.Program),
    Membership: conn.model<MembershipDoc>('Membership', ...COLLECTIONS.Membership),
    Product: conn.model<ProductDoc>('Product', ...COLLECTIONS.Product),
    Link: conn.model<LinkDoc>('Link', ...COLLECTIONS.Link),
    Click: conn.model<ClickDoc>('Click', ...COLLECTIONS.Click),
    Conversion: conn.model<ConversionDoc>('Conversion', ...COLLECTIONS.Conversion),
    Idempotency: conn.model<IdempotencyDoc>('Idempotency', ...COLLECTIONS.Idempotency),
    PostbackConfig: conn.model<PostbackConfigDoc>('PostbackConfig', ...COLLECTIONS.PostbackConfig),
    PostbackDelivery: conn.model<PostbackDeliveryDoc>('PostbackDelivery', ...COLLECTIONS.PostbackDelivery),
    Offer: conn.model<OfferDoc>('Offer', ...COLLECTIONS.Offer),
    MonetizeApplication: conn.model<MonetizeApplicationDoc>('MonetizeApplication', ...COLLECTIONS.MonetizeApplication),
    TrendingPlan: conn.model<TrendingPlanDoc>('TrendingPlan', ...COLLECTIONS.TrendingPlan),
    FeedState: conn.model<FeedStateDoc>('FeedState', ...COLLECTIONS.FeedState),
    SaleEvent: conn.model<SaleEventDoc>('SaleEvent', ...COLLECTIONS.SaleEvent),
    EventLogHead: conn.model<EventLogHeadDoc>('EventLogHead', ...COLLECTIONS.EventLogHead),
    Stat: conn.model<StatDoc>('Stat', ...COLLECTIONS.Stat),
    StatTxn: conn.model<StatTxnDoc>('StatTxn', ...COLLECTIONS.StatTxn),
    AgendaJob: conn.model<Record<string, unknown>>('AgendaJob', ...COLLECTIONS.AgendaJob),
  };
}
