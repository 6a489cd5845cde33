/**
 * Product search and lookup as the publisher API serves them: validation rules beyond the
 * schemas, the caller's scope, catalog reads, the caller's own tracked link for every product,
 * and the response shape (no source links, no financial terms).
 */
import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import { affiliateAttribution, ensureLinks, trackedUrl } from '@cw/links';
import { compareDecimals, decimal128String } from '@cw/money';
import { serializerFor, useCase, type InputOf } from '@cw/usecase';
import { own, type CatalogDeps } from './deps';
import { isValidGtin } from './gtin';
import { LOOKUP_INPUT, PRODUCT_PAGE_SCHEMA, SEARCH_INPUT } from './products.schemas';
import { catalogScope } from './scope';
import { FRESHNESS_HOURS, lookupProducts, searchProducts, type Page } from './search.service';
import type { CatalogRow, ProductPageBody, ProductView } from './types';

/** Search and lookup share one budget; demo keys may use them; feed access is required. */
const PRODUCTS_POLICY: Policy = { budget: 'products', allowDemo: true, requireFeedAccess: true, scope: 'catalog:read' };

function countriesFor(principal: Principal, country: string | undefined): string[] {
  if (country !== undefined) return [country === 'UK' ? 'GB' : country];
  const markets = principal.publisher.markets ?? [];
  if (!markets.length) {
    throw new ApiError({
      code: 'country_required',
      detail: 'This account has no product-feed market list: send country.',
      errors: [{ param: 'country', detail: 'is required for this account' }],
    });
  }
  return markets;
}

export const searchProductsPage = useCase(
  PRODUCTS_POLICY,
  async function searchProductsPage(deps: CatalogDeps, principal: Principal, q: InputOf<typeof SEARCH_INPUT>) {
    if (q.q === undefined && q.brand === undefined && q.category === undefined && q.country === undefined) {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: "Invalid parameter 'q': is required unless brand, category or country is given.",
        errors: [{ param: 'q', detail: 'is required unless brand, category or country is given' }],
      });
    }
    if (q.min_price !== undefined && q.max_price !== undefined && compareDecimals(q.max_price, q.min_price) < 0) {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: "Invalid parameter 'max_price': must not be lower than min_price.",
        errors: [{ param: 'max_price', detail: 'must not be lower than min_price' }],
      });
    }
    const countries = countriesFor(principal, q.country);
    const { limit, offset } = q;
    const key = JSON.stringify(['search', q.q, q.brand, q.category, q.country, q.merchant, q.group, q.min_price, q.max_price, q.currency, limit, offset]);
    const page = await deps.caches.productPages.through(principal, key, async () => {
      const scope = await catalogScope(deps, principal);
      const page = await searchProducts(own(deps), scope, {
        q: q.q,
        brand: q.brand,
        category: q.category,
        countries,
        merchant: q.merchant,
        group: q.group === 1,
        minPrice: q.min_price,
        maxPrice: q.max_price,
        currency: q.currency,
        limit,
        offset,
        maxTimeMs: deps.config.catalogQueryTimeoutMs,
        rows: deps.caches.productRows.at(principal),
      });
      return { value: await respond(deps, principal, page, limit, offset, q.group === 1), validUntil: page.validUntil };
    });
    return q.attribution === 'token' ? withAttribution(deps, principal, page) : page;
  },
  SEARCH_INPUT,
);

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function splitList(raw: string | undefined, param: string): string[] {
  if (raw === undefined) return [];
  const items = raw.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) {
    throw new ApiError({
      code: 'invalid_parameter',
      detail: `Invalid parameter '${param}': contains an empty identifier.`,
      errors: [{ param, detail: 'contains an empty identifier' }],
    });
  }
  return [...new Set(items)];
}

export const lookupProductsPage = useCase(
  PRODUCTS_POLICY,
  async function lookupProductsPage(deps: CatalogDeps, principal: Principal, q: InputOf<typeof LOOKUP_INPUT>) {
    const ids = splitList(q.ids, 'ids');
    const gtins = splitList(q.gtins, 'gtins');
    const badId = ids.find((id) => !ID_PATTERN.test(id));
    if (badId)
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `Invalid parameter 'ids': "${badId.slice(0, 64)}" is not a product id.`,
        errors: [{ param: 'ids', detail: 'contains an invalid product id' }],
      });
    const badGtin = gtins.find((g) => !isValidGtin(g));
    if (badGtin !== undefined) {
      throw new ApiError({
        code: 'invalid_gtin',
        detail: `Invalid GTIN "${badGtin.slice(0, 20)}": GTINs have 8, 12, 13 or 14 digits with a valid check digit.`,
        errors: [{ param: 'gtins', detail: `"${badGtin.slice(0, 20)}" is not a valid GTIN` }],
      });
    }
    const total = ids.length + gtins.length;
    if (total < 1 || total > 100) {
      throw new ApiError({
        code: 'invalid_parameter',
        detail: `ids and gtins together must hold 1 to 100 identifiers, got ${total}.`,
        errors: [{ param: ids.length ? 'ids' : 'gtins', detail: 'must hold 1 to 100 identifiers together' }],
      });
    }
    const countries = countriesFor(principal, q.country);
    const { limit, offset } = q;
    const key = JSON.stringify(['lookup', ids, gtins, q.country, q.merchant, limit, offset]);
    const page = await deps.caches.productPages.through(principal, key, async () => {
      const scope = await catalogScope(deps, principal);
      const page = await lookupProducts(own(deps), scope, {
        ids,
        gtins,
        countries,
        merchant: q.merchant,
        limit,
        offset,
        maxTimeMs: deps.config.catalogQueryTimeoutMs,
        rows: deps.caches.productRows.at(principal),
      });
      return { value: await respond(deps, principal, page, limit, offset, false), validUntil: page.validUntil };
    });
    return q.attribution === 'token' ? withAttribution(deps, principal, page) : page;
  },
  LOOKUP_INPUT,
);

/** The page's JSON, written by the one serializer of PRODUCT_PAGE_SCHEMA (docs/decisions/0044-one-serializer-per-response.md). */
const writePage = serializerFor(PRODUCT_PAGE_SCHEMA);

/**
 * The page as the bytes every surface sends (HTTP's body, MCP's text and structured content) and
 * the page cache keeps: one build, one serialisation, per page.
 */
async function respond(deps: CatalogDeps, principal: Principal, page: Page, limit: number, offset: number, group: boolean): Promise<string> {
  const { config } = deps;
  const rows = page.rows;
  let codes: string[] = [];
  if (rows.length) {
    try {
      const ensured = await ensureLinks(
        deps.data.links,
        config.secretKey,
        // Each link records its product (the GTIN fallback and the health pass read it: decision 0063).
        rows.map((r) => ({
          publisherId: principal.publisher._id,
          programId: r.program_id,
          merchantId: r.merchant_id,
          landingUrl: r.source_url,
          subid: '',
          product: { id: r._id, gtin: r.gtin, market: r.country },
        })),
        { source: 'product' },
      );
      codes = ensured.map((e) => e.code);
    } catch {
      // Never an untracked fallback link.
      throw new ApiError({ code: 'service_unavailable', detail: 'Tracked links for these products are being refreshed. Retry with backoff.' });
    }
  }
  const merchants = await deps.data.programs.merchantNames(rows.map((r) => r.merchant_id));
  const products = rows.map((r, i): ProductView => {
    const { price, updatedAt } = formatted(r);
    const view: ProductView = {
      id: r._id,
      gtin: r.gtin,
      title: r.title,
      price,
      currency: r.currency,
      image: r.image ?? '',
      url: trackedUrl(config.trackingUrl, codes[i]!),
      merchant: { id: r.merchant_id, name: merchants.get(r.merchant_id) ?? '' },
      availability: r.availability,
      country: r.country,
      updated_at: updatedAt,
    };
    if (group) view.sizes = page.sizes?.get(r._id) ?? [];
    return view;
  });
  const body: ProductPageBody = {
    products,
    count: products.length,
    limit,
    offset,
    next_offset: page.nextOffset,
    freshness_hours: FRESHNESS_HOURS,
    ...(group ? { total: page.total ?? 0 } : {}),
  };
  return writePage(body);
}

/**
 * The page with an agent attribution token on every product (`attribution=token`, and every MCP
 * product result): signed per call, after the page cache, so no two answers share a token (a
 * token credits one order). Each names the product's merchant (its audience), program and the
 * caller (docs/decisions/0057-codes-and-agent-tokens.md).
 */
async function withAttribution(deps: CatalogDeps, principal: Principal, json: string): Promise<string> {
  const body = JSON.parse(json) as ProductPageBody;
  if (!body.products.length) return json;
  const rows = await own(deps)
    .Product.find({ _id: { $in: body.products.map((p) => p.id) } }, { program_id: 1, merchant_id: 1 })
    .lean<Array<{ _id: string; program_id: number; merchant_id: number }>>();
  const byId = new Map(rows.map((r) => [r._id, r]));
  const now = Date.now();
  for (const p of body.products) {
    const row = byId.get(p.id);
    if (!row) continue;
    p.affiliate_attribution = affiliateAttribution(
      deps.config.keys,
      deps.config.portalUrl,
      { merchantId: row.merchant_id, programId: row.program_id, publisherId: principal.publisher._id, productId: p.id, subid: '' },
      now,
    );
  }
  return writePage(body);
}

/**
 * A row's decimal price and date as answered, whatever the caller: kept with the row object,
 * which the row cache hands out again under one catalog version, so a held row is not formatted
 * again.
 */
const formattedRows = new WeakMap<CatalogRow, { price: string; updatedAt: string }>();

function formatted(r: CatalogRow): { price: string; updatedAt: string } {
  let f = formattedRows.get(r);
  if (!f) formattedRows.set(r, (f = { price: decimal128String(r.price), updatedAt: new Date(r.last_seen_at).toISOString() }));
  return f;
}
