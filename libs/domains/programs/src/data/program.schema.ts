import { Schema, type InferSchemaType } from 'mongoose';

/** An affiliate program of a merchant: terms shown to publishers, link rules, approval policy. */
export const programSchema = new Schema(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    merchant_id: { type: Number, required: true, index: true },
    description: { type: String, default: '' },
    category: { type: String, default: '' },
    countries: { type: [String], default: [] },
    currency: { type: String, default: 'EUR' },
    /** Publisher commission as shown to publishers, e.g. "8%" or "EUR 5.00 per sale". */
    commission_description: { type: String, default: '' },
    /** Commission terms: a fraction of the sale (0.08 = 8%), or a fixed amount per sale in the program's currency. */
    commission_rate: { type: Schema.Types.Decimal128 },
    commission_fixed: { type: Schema.Types.Decimal128 },
    cookie_days: { type: Number, default: 30 },
    /** Days the merchant has to answer a missing-sale inquiry before it is decided on its evidence (absent: @cw/inquiries' default, 30). */
    inquiry_response_days: { type: Number, min: 1, max: 365 },
    status: { type: String, enum: ['active', 'paused', 'closed'], default: 'active' },
    /** Open for applications by publishers not yet assigned. */
    joinable: { type: Boolean, default: true },
    auto_approve: { type: Boolean, default: false },
    /** Publisher channels the merchant accepts (coupon, content, social); empty: all. */
    allowed_channels: { type: [String], default: [] },
    /** Hostnames a landing URL may use (subdomains included). */
    allowed_domains: { type: [String], default: [] },
    default_landing_url: { type: String, required: true },
    /**
     * Personal coupon codes (@cw/codes): a prefix every code starts with, the length of a whole
     * code, and whether a requested code is active at once (`auto`) or waits for an operator
     * (`operator`). Absent: the codes lib's defaults (no prefix, 6 to 20 characters, operator review).
     */
    code_rules: {
      type: new Schema(
        {
          prefix: { type: String, default: '' },
          min_length: { type: Number, default: 6 },
          max_length: { type: Number, default: 20 },
          review: { type: String, enum: ['auto', 'operator'], default: 'operator' },
        },
        { _id: false },
      ),
      default: undefined,
    },
    /** Query parameter that carries the click id on the redirect to the merchant. */
    click_id_param: { type: String, default: 'cw_click_id' },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);

export type ProgramDoc = InferSchemaType<typeof programSchema>;
