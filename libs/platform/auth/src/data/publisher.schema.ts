import { Schema, type InferSchemaType } from 'mongoose';

/** Where a publisher promotes: coupon sites, content (blogs, comparison), social posts. */
export const PUBLISHER_CHANNELS = ['coupon', 'content', 'social'] as const;

/** A publisher account: its status, product-feed access and markets, channels and payout setup. */
export const publisherSchema = new Schema(
  {
    _id: { type: String, required: true }, // public account id, e.g. pub_3f9c...
    name: { type: String, required: true },
    website: { type: String },
    /**
     * provisional: an instant-monetization application not yet approved (no credentials, links only);
     * pending: signed up in the portal, waiting for the network's review (no credentials work yet).
     */
    status: { type: String, enum: ['active', 'inactive', 'provisional', 'pending'], default: 'active', required: true },
    /** The IANA zone the portal shows the account's numbers in. */
    timezone: { type: String, default: 'UTC' },
    /** Demo accounts: catalog search and lookup only; test and nonpayable. */
    is_demo: { type: Boolean, default: false },
    feed_access: { type: Boolean, default: true },
    /** Comparison sites may filter feeds by merchant (merchant_filter); set by operators. */
    comparison_site: { type: Boolean, default: false },
    /** Authorized product-feed markets (ISO alpha-2). Empty: the account has no market list. */
    markets: { type: [String], default: [] },
    channels: { type: [String], default: [] },
    /** false: no product link of the account falls back to the same GTIN at another program (docs/decisions/0063-gtin-fallback.md). */
    link_fallback: { type: Boolean, default: true },
    trending_subscribed: { type: Boolean, default: false },
    /** Channels the trending subscription covers (a subset of coupon, content, social). */
    trending_channels: { type: [String], default: [] },
    payout: {
      method_type: { type: String, enum: ['bank_account', 'paypal', 'none'], default: 'none' },
      /** Last 4 digits of the bank account only; never the full number. */
      last4: { type: String },
      threshold: { type: Schema.Types.Decimal128 },
      currency: { type: String, default: 'EUR' },
    },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);

export type PublisherDoc = InferSchemaType<typeof publisherSchema>;
