import type { Connection, Model } from 'mongoose';
import './access-changes';
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
}

/** Registers every model on the given connection (never on mongoose's default connection). */
export function createModels(conn: Connection): Models {
  return {
    Publisher: conn.model<PublisherDoc>('Publisher', publisherSchema, 'publishers'),
    Credential: conn.model<CredentialDoc>('Credential', credentialSchema, 'credentials'),
    Merchant: conn.model<MerchantDoc>('Merchant', merchantSchema, 'merchants'),
    Program: conn.model<ProgramDoc>('Program', programSchema, 'programs'),
    Membership: conn.model<MembershipDoc>('Membership', membershipSchema, 'program_memberships'),
    Product: conn.model<ProductDoc>('Product', productSchema, 'products'),
    Link: conn.model<LinkDoc>('Link', linkSchema, 'links'),
    Click: conn.model<ClickDoc>('Click', clickSchema, 'clicks'),
    Conversion: conn.model<ConversionDoc>('Conversion', conversionSchema, 'conversions'),
    Idempotency: conn.model<IdempotencyDoc>('Idempotency', idempotencySchema, 'idempotency_keys'),
    PostbackConfig: conn.model<PostbackConfigDoc>('PostbackConfig', postbackConfigSchema, 'postback_configs'),
    PostbackDelivery: conn.model<PostbackDeliveryDoc>('PostbackDelivery', postbackDeliverySchema, 'postback_deliveries'),
    Offer: conn.model<OfferDoc>('Offer', offerSchema, 'offers'),
    MonetizeApplication: conn.model<MonetizeApplicationDoc>('MonetizeApplication', monetizeApplicationSchema, 'monetize_applications'),
    TrendingPlan: conn.model<TrendingPlanDoc>('TrendingPlan', trendingPlanSchema, 'trending_plans'),
    FeedState: conn.model<FeedStateDoc>('FeedState', feedStateSchema, 'feed_states'),
  };
}


