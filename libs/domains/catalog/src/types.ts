/**
 * The catalog's data shapes shared by its reads, caches and responses: a catalog row as read, a
 * product page as answered, the public network statistics. Types only, so every module of the lib
 * can import them without importing each other.
 */
import type { Types } from 'mongoose';

/** A catalog row as read for responses (never the source URL or financial terms). */
export interface CatalogRow {
  _id: string;
  gtin: string;
  title: string;
  price: Types.Decimal128;
  currency: string;
  image: string;
  source_url: string;
  merchant_id: number;
  program_id: number;
  country: string;
  availability: string;
  last_seen_at: Date;
  fresh_until: Date;
  group_id?: string;
  size?: string;
}

/** One product of a page as answered (PRODUCT_PAGE_SCHEMA's product). */
export interface ProductView {
  id: string;
  gtin: string;
  title: string;
  price: string;
  currency: string;
  image: string;
  url: string;
  merchant: { id: number; name: string };
  availability: string;
  country: string;
  updated_at: string;
  /** With group=1 only. */
  sizes?: Array<{ size: string; product_id: string; availability: string }>;
  /** With attribution=token (always over MCP): the ACP object of an agent attribution token. */
  affiliate_attribution?: { provider: string; token: string; publisher_id: string; campaign_id: number; expires_at: string };
}

/** A product page as answered (PRODUCT_PAGE_SCHEMA; the use cases answer its bytes, parsed by MCP for structured content). */
export interface ProductPageBody {
  products: ProductView[];
  count: number;
  limit: number;
  offset: number;
  next_offset: number | null;
  freshness_hours: number;
  /** With group=1 only: the number of groups. */
  total?: number;
}

/** The public network statistics (no credential). */
export interface NetworkStats {
  programs: number;
  merchants: number;
  markets: string[];
  products_per_market: Array<{ country: string; products: number }>;
  generated_at: string;
}
