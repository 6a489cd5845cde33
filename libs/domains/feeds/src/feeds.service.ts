/**
 * Product feeds for an account: the signed feed URL (`GET /api/v1/affiliates/feed/`) and the feed
 * itself (`GET /api/v1/feeds/products/`, with that URL's parameters or an API key). A feed holds
 * the account's approved, fresh products of one market, each `link` its own tracked link.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Policy, Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { ensureLinks, trackedUrl } from '@cw/links';
import type { InputOf } from '@cw/usecase';
import type { FeedsDeps as UseCaseDeps } from './deps';
import { CONTENT_TYPES, encodeFeed, FEED_FORMATS, feedItem, type FeedFormat, type FeedItem } from './feed-formats';
import { feedFiles, feedRows, MAX_PER_COUNTRY, type FeedRecord } from './feed-source';
import { RENEW_BEFORE_DAYS, signedFeedUrl, VALIDITY_DAYS, verifyFeedSignature } from './feed-url';

/** API keys of accounts with product-feed access (demo keys refused), the feeds budget. */
export const FEEDS_POLICY: Policy = { budget: 'feeds', requireFeedAccess: true, scope: 'catalog:read' };

export const SAMPLE_CAP = 12;
export const SAMPLE_CSV_CAP = 100;
const LINK_BATCH = 200;

const FEED_PARAMS = {
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: "ISO alpha-2, one of the account's markets; UK is accepted as GB." },
  format: { type: 'string', enum: FEED_FORMATS, default: 'xml' },
  merchant_filter: {
    type: 'string',
    pattern: '^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9}){0,49}$',
    description: 'Comma-separated merchant ids (comparison sites only).',
  },
  sample: {
    type: 'integer',
    enum: [0, 1],
    default: 0,
    description: '1: at most 12 products (100 rows in CSV), links to the merchant pages, no tracked links.',
  },
} as const;

export const FEED_URL_INPUT = { type: 'object', additionalProperties: false, required: ['country'], properties: FEED_PARAMS } as const;

export const FEED_PRODUCTS_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['country'],
  properties: {
    ...FEED_PARAMS,
    account: { type: 'string', maxLength: 64, description: 'Signed URLs: the account.' },
    expires: { type: 'integer', minimum: 0, maximum: 99999999999, description: 'Signed URLs: expiry (Unix seconds).' },
    kid: { type: 'string', maxLength: 64, description: 'Signed URLs: the issuing key.' },
    sk: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,32}$', description: 'Signed URLs: the id of the platform key that signed it.' },
    sig: { type: 'string', maxLength: 128, description: 'Signed URLs: the signature.' },
  },
} as const;

type FeedParams = InputOf<typeof FEED_URL_INPUT>;
type Publisher = Principal['publisher'];

const countryOf = (c: string) => (c === 'UK' ? 'GB' : c);

/** The account's view: the country within its markets, merchant_filter only for comparison sites. */
function checkParams(publisher: Publisher, p: FeedParams): { country: string; merchants?: number[] } {
  const country = countryOf(p.country);
  if (!(publisher.markets ?? []).includes(country)) {
    throw new ApiError({
      code: 'forbidden',
      detail: `Country ${country} is not one of this account's feed markets.`,
      errors: [{ param: 'country', detail: 'is outside the account markets' }],
    });
  }
  if (p.merchant_filter !== undefined && !publisher.comparison_site) {
    throw new ApiError({
      code: 'forbidden',
      detail: 'merchant_filter is available to accounts authorized as comparison sites only.',
      errors: [{ param: 'merchant_filter', detail: 'needs a comparison-site account' }],
    });
  }
  return { country, merchants: p.merchant_filter?.split(',').map(Number) };
}

/** GET /api/v1/affiliates/feed/: the signed URL of this feed, valid 90 days. */
export function issueFeedUrl(deps: Pick<UseCaseDeps, 'config'>, principal: Principal, input: FeedParams, now = new Date()) {
  const { country } = checkParams(principal.publisher, input);
  const expires = Math.floor(now.getTime() / 1000) + VALIDITY_DAYS * 86_400;
  const url = signedFeedUrl(deps.config.feedUrl, deps.config.keys, {
    account: principal.publisher._id,
    country,
    format: input.format,
    merchant_filter: input.merchant_filter,
    sample: input.sample || undefined,
    expires,
    kid: principal.credentialId,
  });
  return {
    url,
    format: input.format,
    country,
    ...(input.merchant_filter ? { merchant_filter: input.merchant_filter } : {}),
    ...(input.sample ? { sample: 1 } : {}),
    expires_at: new Date(expires * 1000).toISOString(),
    renew_after: new Date((expires - RENEW_BEFORE_DAYS * 86_400) * 1000).toISOString(),
  };
}

const invalidUrl = (detail: string) => new ApiError({ code: 'feed_url_invalid', detail });

/**
 * The account a signed URL serves, checked on every request: the signature, the expiry, the key
 * that asked for it still active and the account active with feed access.
 */
export async function signedFeedAccount(deps: UseCaseDeps, q: InputOf<typeof FEED_PRODUCTS_INPUT>, now = Date.now()): Promise<Publisher> {
  if (q.account === undefined || q.expires === undefined || q.kid === undefined || q.sig === undefined) {
    throw invalidUrl('A signed feed URL needs account, expires, kid and sig, as issued by /api/v1/affiliates/feed/.');
  }
  verifyFeedSignature(
    deps.config.keys,
    {
      account: q.account,
      country: q.country,
      format: q.format,
      merchant_filter: q.merchant_filter,
      sample: q.sample || undefined,
      expires: q.expires,
      kid: q.kid,
      sk: q.sk,
    },
    q.sig,
    now,
  );
  const cred = await deps.data.auth.credentialById(q.kid);
  const publisher = cred ? ((await deps.data.auth.publisherById(q.account)) as Publisher | null) : null;
  if (
    !cred ||
    cred.status !== 'active' ||
    cred.type !== 'api_key' ||
    cred.key_kind === 'demo' ||
    cred.publisher_id !== q.account ||
    !publisher ||
    publisher.status !== 'active' ||
    !publisher.feed_access
  ) {
    throw invalidUrl('This feed URL is no longer valid: its key was revoked or the account cannot use feeds. Request a new one.');
  }
  return publisher;
}

export interface PreparedFeed {
  contentType: string;
  filename: string;
  /** Present when every program is served from a prepared file (the feed can be revalidated). */
  etag?: string;
  lastModified?: Date;
  /** Starts the stream; `close` stops every source (client gone). */
  open(): { stream: Readable; close: () => void };
}

/** What the account's feed holds and how to revalidate it; nothing is read from the catalog yet. */
export async function prepareFeed(deps: UseCaseDeps, publisher: Publisher, input: FeedParams, now = new Date()): Promise<PreparedFeed> {
  const { country, merchants } = checkParams(publisher, input);
  const approved = await deps.data.programs.activeApprovedIds(publisher._id);
  const programs = await deps.data.programs.active({ ids: approved, country, merchants }, { _id: 1 });
  const programIds = programs.map((p) => p._id);
  const files = await feedFiles(deps.data, country, programIds);
  const format = input.format as FeedFormat;
  const sample = input.sample === 1;
  const cap = sample ? (format === 'csv' ? SAMPLE_CSV_CAP : SAMPLE_CAP) : MAX_PER_COUNTRY;
  const prepared = programIds.every((id) => files.has(id));
  const validators = prepared
    ? {
        etag: `"${createHash('sha256')
          .update(JSON.stringify([publisher._id, country, format, input.merchant_filter ?? '', sample, programIds.map((id) => files.get(id)!.id)]))
          .digest('base64url')
          .slice(0, 32)}"`,
        lastModified: new Date(Math.max(0, ...[...files.values()].map((f) => f.generatedAt.getTime()))),
      }
    : {};
  return {
    contentType: CONTENT_TYPES[format],
    filename: `products-${country}${sample ? '-sample' : ''}.${format}`,
    ...validators,
    open() {
      const { rows, close } = feedRows(deps.data, { country, programIds, files, cap }, now);
      const items = feedItems(deps, publisher._id, rows, !sample);
      const stream = encodeFeed(format, items, {
        title: `Products for ${publisher.name} (${country})`,
        link: deps.config.portalUrl,
        description: sample ? 'Sample: merchant pages, no tracked links.' : 'Every link is your tracked link.',
        head: { country, format, sample, generated_at: now.toISOString(), account: publisher._id },
      });
      return { stream, close };
    },
  };
}

/** Rows to items in batches: one link write per batch (only for new links), merchant names cached. */
async function* feedItems(deps: UseCaseDeps, publisherId: string, rows: AsyncIterable<FeedRecord>, tracked: boolean): AsyncGenerator<FeedItem> {
  let batch: FeedRecord[] = [];
  const flush = async function* () {
    const names = await deps.data.programs.merchantNames(batch.map((r) => r.merchant_id));
    let links: string[] = batch.map((r) => r.source_url);
    if (tracked) {
      const ensured = await ensureLinks(
        deps.data.links,
        deps.config.secretKey,
        batch.map((r) => ({ publisherId, programId: r.program_id, merchantId: r.merchant_id, landingUrl: r.source_url, subid: '' })),
        { source: 'product' },
      );
      links = ensured.map((e) => trackedUrl(deps.config.trackingUrl, e.code));
    }
    // links holds one URL per row of the batch, in its order.
    for (const [i, r] of batch.entries()) yield feedItem(r, links[i]!, names.get(r.merchant_id) ?? '', tracked);
    batch = [];
  };
  for await (const r of rows) {
    batch.push(r);
    if (batch.length >= LINK_BATCH) {
      yield* flush();
      // Back to the event loop between batches: rows often come without I/O (known links, a
      // file's buffered chunk), and the socket's writes are only flushed from there; it also
      // keeps one large feed from holding the process for its whole length.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (batch.length) yield* flush();
}
