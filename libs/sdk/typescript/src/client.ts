/**
 * The client: one object per platform and credential set, its surfaces as namespaces.
 *
 *   const cw = new CwClient({ apiKey: 'live_…', baseUrl: 'https://…' }); // or CW_API_KEY, CW_BASE_URL
 *   for await (const link of cw.links.list({ subid: 'newsletter' })) console.log(link.url);
 */
import { streamEvents, type StreamedEvent, type StreamOptions } from './events.js';
import { byCursor, byEventCursor, byOffset, byPageNumber, PageIterator } from './paginate.js';
import { Transport, type Auth, type ClientOptions, type RequestOptions } from './transport.js';
import type { FeedsOperations as F, MonetizeOperations as M, PublisherOperations as P, ReportingOperations as R, Body, Ok, Query } from './types.js';
import type * as T from './types.js';

const PUB = '/api/v1/publisher';
const REP = '/api/v1/affiliate-reporting';
const MON = '/api/v1/monetize';

type Params = Record<string, unknown>;
type ItemOf<Pg> = Pg extends { data: Array<infer I> } ? I : Pg extends { products: Array<infer I> } ? I : never;

abstract class Resource {
  constructor(protected readonly t: Transport) {}

  protected fetchJson<Res>(path: string, query: Params | undefined, auth: Auth, options?: RequestOptions): Promise<Res> {
    return this.t.call<Res>({ method: 'GET', path, query, auth }, options);
  }

  protected paged<Pg>(
    path: string,
    query: Params | undefined,
    auth: Auth,
    next: (page: Pg, params: Params) => Params | null,
    options?: RequestOptions,
  ): PageIterator<Pg, ItemOf<Pg>> {
    const items = (page: Pg) => ((page as { data?: unknown[] }).data ?? (page as { products?: unknown[] }).products ?? []) as ItemOf<Pg>[];
    return new PageIterator<Pg, ItemOf<Pg>>((q) => this.fetchJson<Pg>(path, q, auth, options), { ...query }, next, items);
  }
}

/** The events feed (publisher API or reporting-token API: the same log). */
export class EventsResource extends Resource {
  constructor(
    t: Transport,
    private readonly prefix: string,
    private readonly auth: Auth,
  ) {
    super(t);
  }

  /** Events after `cursor`, oldest first; iterating walks until caught up (`has_more` false). */
  list(query: Query<P['listEvents']> = {}, options?: RequestOptions): PageIterator<T.EventPage, T.AccountEvent> {
    return this.paged<T.EventPage>(`${this.prefix}/events/`, query, this.auth, byEventCursor, options);
  }

  /** The cursor after the newest event now: start a stream there to get only what happens from now on. */
  async latestCursor(options?: RequestOptions): Promise<string> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchJson<T.EventPage>(`${this.prefix}/events/`, { cursor, limit: 500 }, this.auth, options);
      cursor = page.next_cursor;
      if (!page.has_more) return cursor;
    }
  }

  /**
   * Every event as it happens (Server-Sent Events), from `cursor` (absent: from the first event),
   * reconnecting with backoff after a cut and resuming after the last event received. Ends when
   * `signal` aborts or the loop breaks.
   */
  stream(options: StreamOptions = {}): AsyncGenerator<StreamedEvent> {
    return streamEvents(
      {
        open: (cursor, signal) =>
          this.t.send(
            { method: 'GET', path: `${this.prefix}/events/stream/`, auth: this.auth, as: 'response', accept: 'text/event-stream' },
            // Reconnection is the stream's own loop; the transport's timeout would cut a healthy stream.
            { signal, retry: { maxRetries: 0 }, headers: cursor ? { 'Last-Event-ID': cursor } : {} },
          ),
      },
      options,
    );
  }
}

export class ProductsResource extends Resource {
  /** Search (follows `next_offset` when iterated). */
  search(query: Query<P['searchProducts']>, options?: RequestOptions): PageIterator<T.ProductPage, T.Product> {
    return this.paged<T.ProductPage>(`${PUB}/products/`, query, 'publisher', byOffset, options);
  }

  /** Lookup by ids and/or GTINs (follow `next_offset`: a GTIN may match several merchants). */
  lookup(query: Query<P['lookupProducts']>, options?: RequestOptions): PageIterator<T.ProductPage, T.Product> {
    return this.paged<T.ProductPage>(`${PUB}/products/lookup/`, query, 'publisher', byOffset, options);
  }
}

export class ProgramsResource extends Resource {
  list(query: Query<P['listPrograms']> = {}, options?: RequestOptions): PageIterator<T.ProgramPage, T.Program> {
    return this.paged<T.ProgramPage>(`${PUB}/programs/`, query, 'publisher', byCursor, options);
  }

  joinable(query: Query<P['listJoinablePrograms']> = {}, options?: RequestOptions): PageIterator<Ok<P['listJoinablePrograms']>, T.Program> {
    return this.paged<Ok<P['listJoinablePrograms']>>(`${PUB}/programs/joinable/`, query, 'publisher', byCursor, options) as PageIterator<
      Ok<P['listJoinablePrograms']>,
      T.Program
    >;
  }

  /** Applies (201 approved, 200 otherwise); sent with an Idempotency-Key, so retries are safe. */
  apply(body: Body<P['applyToProgram']>, options?: RequestOptions): Promise<T.ProgramApplication> {
    return this.t.call({ method: 'POST', path: `${PUB}/programs/apply/`, body, auth: 'publisher', idempotent: true }, options);
  }
}

export class LinksResource extends Resource {
  list(query: Query<P['listLinks']> = {}, options?: RequestOptions): PageIterator<T.LinkPage, T.Link> {
    return this.paged<T.LinkPage>(`${PUB}/links/`, query, 'publisher', byCursor, options) as PageIterator<T.LinkPage, T.Link>;
  }

  /** Creates a tracking link (or returns the existing one); sent with an Idempotency-Key, so retries are safe. */
  create(body: T.LinkRequest, options?: RequestOptions): Promise<T.Link> {
    return this.t.call({ method: 'POST', path: `${PUB}/links/`, body, auth: 'publisher', idempotent: true }, options);
  }

  /** Up to 50 links in one call, each with its own status. */
  createBatch(links: T.LinkRequest[], options?: RequestOptions): Promise<T.LinkBatchResult> {
    return this.t.call({ method: 'POST', path: `${PUB}/links/batch/`, body: { links }, auth: 'publisher', idempotent: true }, options);
  }
}

export class ConversionsResource extends Resource {
  list(query: Query<P['listConversions']> = {}, options?: RequestOptions): PageIterator<T.ConversionPage, T.Conversion> {
    return this.paged<T.ConversionPage>(`${PUB}/conversions/`, query, 'publisher', byCursor, options);
  }
}

export class ClicksResource extends Resource {
  list(query: Query<P['listClicks']> = {}, options?: RequestOptions): PageIterator<T.ClickPage, T.Click> {
    return this.paged<T.ClickPage>(`${PUB}/clicks/`, query, 'publisher', byCursor, options);
  }
}

/** Money out: the account's payouts and the owner's request for one. */
export class PayoutsResource extends Resource {
  list(query: Query<P['listPayouts']> = {}, options?: RequestOptions): PageIterator<T.PayoutPage, T.Payout> {
    return this.paged<T.PayoutPage>(`${PUB}/payouts/`, query, 'publisher', byCursor, options);
  }

  get(id: string, options?: RequestOptions): Promise<T.Payout> {
    return this.t.call({ method: 'GET', path: `${PUB}/payouts/${encodeURIComponent(id)}/`, auth: 'publisher' }, options);
  }

  /** The whole available balance, in the payout currency (409: below_threshold, payout_hold, no_payout_method, tax_profile_incomplete, payout_in_progress). */
  request(options?: RequestOptions): Promise<T.Payout> {
    return this.t.call({ method: 'POST', path: `${PUB}/payouts/`, body: {}, auth: 'publisher', idempotent: true }, options);
  }

  /**
   * A paid payout's self-billing statement: the PDF's bytes, or with `'json'` its content (404
   * statement_not_issued until the payout is paid; a correction is served in its place).
   */
  statement(id: string, format?: 'pdf', options?: RequestOptions): Promise<Uint8Array>;
  statement(id: string, format: 'json', options?: RequestOptions): Promise<T.PayoutStatement>;
  async statement(id: string, format: 'pdf' | 'json' = 'pdf', options?: RequestOptions): Promise<Uint8Array | T.PayoutStatement> {
    const path = `${PUB}/payouts/${encodeURIComponent(id)}/statement/`;
    if (format === 'json') return this.t.call<T.PayoutStatement>({ method: 'GET', path, auth: 'publisher', accept: 'application/json' }, options);
    const res = await this.t.call<Response>({ method: 'GET', path, auth: 'publisher', accept: 'application/pdf', as: 'response' }, options);
    return new Uint8Array(await res.arrayBuffer());
  }
}

/** Missing-sale inquiries: an order you earned that was not credited, with the platform's click evidence. */
export class InquiriesResource extends Resource {
  /** Files one (201; 200 when the same order was filed before); sent with an Idempotency-Key, so retries are safe. */
  file(body: Body<P['fileInquiry']>, options?: RequestOptions): Promise<T.Inquiry> {
    return this.t.call({ method: 'POST', path: `${PUB}/inquiries/`, body, auth: 'publisher', idempotent: true }, options);
  }

  list(query: Query<P['listInquiries']> = {}, options?: RequestOptions): PageIterator<T.InquiryPage, T.Inquiry> {
    return this.paged<T.InquiryPage>(`${PUB}/inquiries/`, query, 'publisher', byCursor, options);
  }

  get(id: string, options?: RequestOptions): Promise<T.Inquiry> {
    return this.t.call({ method: 'GET', path: `${PUB}/inquiries/${encodeURIComponent(id)}/`, auth: 'publisher' }, options);
  }
}

/** Personal coupon codes: one per program you ask for (the program's rules decide its form and whether it is active at once). */
export class CodesResource extends Resource {
  /** Your codes, newest first (`program_id`, `status`, `page_size`). */
  list(query: Query<P['listCodes']> = {}, options?: RequestOptions): PageIterator<T.CodePage, T.Code> {
    return this.paged<T.CodePage>(`${PUB}/codes/`, query, 'publisher', byPageNumber, options);
  }

  /** Asks for a code at a program (201 active or pending_review; 200 when you hold it already; 409 code_taken); sent with an Idempotency-Key. */
  request(body: Body<P['requestCode']>, options?: RequestOptions): Promise<T.Code> {
    return this.t.call({ method: 'POST', path: `${PUB}/codes/`, body, auth: 'publisher', idempotent: true }, options);
  }
}

/** The ledger's entries of the account: every movement of its balance. */
export class BalanceResource extends Resource {
  transactions(query: Query<P['listBalanceTransactions']> = {}, options?: RequestOptions): PageIterator<T.BalanceTransactionPage, T.BalanceTransaction> {
    return this.paged<T.BalanceTransactionPage>(`${PUB}/balance/transactions/`, query, 'publisher', byCursor, options);
  }
}

export class PostbackResource extends Resource {
  /** The configuration (its changes need the portal). */
  get(options?: RequestOptions): Promise<T.PostbackConfig> {
    return this.t.call({ method: 'GET', path: `${PUB}/postback/`, auth: 'publisher' }, options);
  }

  /** Sends a signed test event to the configured URL. */
  test(options?: RequestOptions): Promise<Ok<P['testPostback']>> {
    return this.t.call({ method: 'POST', path: `${PUB}/postback/test/`, auth: 'publisher' }, options);
  }

  deliveries(query: Query<P['listPostbackDeliveries']> = {}, options?: RequestOptions): PageIterator<T.PostbackDeliveryPage, T.PostbackDelivery> {
    return this.paged<T.PostbackDeliveryPage>(`${PUB}/postback/deliveries/`, query, 'publisher', byCursor, options);
  }

  /** Sends a failed or dead delivery again under its delivery id. */
  redeliver(id: string, options?: RequestOptions): Promise<Ok<P['redeliverPostback']>> {
    return this.t.call({ method: 'POST', path: `${PUB}/postback/deliveries/${encodeURIComponent(id)}/redeliver/`, auth: 'publisher' }, options);
  }
}

/** The reporting-token API (`reportingToken`). */
export class ReportingResource extends Resource {
  readonly events: EventsResource;

  constructor(t: Transport) {
    super(t);
    this.events = new EventsResource(t, REP, 'reporting');
  }

  sales(query: Query<R['listSales']> = {}, options?: RequestOptions): PageIterator<T.SalesPage, T.Sale> {
    return this.paged<T.SalesPage>(`${REP}/sales/`, query, 'reporting', byCursor, options);
  }

  subidSales(query: Query<R['listSubidSales']> = {}, options?: RequestOptions): PageIterator<T.SubidSalesPage, ItemOf<T.SubidSalesPage>> {
    return this.paged<T.SubidSalesPage>(`${REP}/subid-sales/`, query, 'reporting', byCursor, options);
  }

  summary(query: Query<R['salesSummary']> = {}, options?: RequestOptions): Promise<T.SalesSummary> {
    return this.fetchJson(`${REP}/summary/`, query, 'reporting', options);
  }

  /** The sales as CSV text. */
  exportSales(query: Query<R['exportSales']> = {}, options?: RequestOptions): Promise<string> {
    return this.t.call({ method: 'GET', path: `${REP}/sales/export/`, query, auth: 'reporting', as: 'text', accept: 'text/csv' }, options);
  }
}

export class FeedsResource extends Resource {
  /** The account's signed feed URL (valid 90 days; needs no key to download). */
  url(query: Query<F['getFeedUrl']>, options?: RequestOptions): Promise<T.FeedUrl> {
    return this.fetchJson(`/api/v1/affiliates/feed/`, query, 'publisher', options);
  }

  /** Downloads a signed feed URL's content as text (xml, csv, tsv or json). */
  async download(signedUrl: string, options?: RequestOptions): Promise<string> {
    const u = new URL(signedUrl);
    return this.t.call({ method: 'GET', path: u.pathname, query: Object.fromEntries(u.searchParams), auth: 'none', as: 'text', accept: '*/*' }, options);
  }
}

/** Instant monetization: no credential; an application's `access_secret` reads it later. */
export class MonetizeResource extends Resource {
  programs(query: Query<M['listInstantPrograms']> = {}, options?: RequestOptions): PageIterator<Ok<M['listInstantPrograms']>, unknown> {
    return this.paged<Ok<M['listInstantPrograms']>>(`${MON}/programs/`, query, 'none', byPageNumber, options);
  }

  /** Provisional links at once (not retried: the endpoint takes no Idempotency-Key). */
  createLinks(body: Body<M['requestInstantLinks']>, options?: RequestOptions): Promise<T.InstantApplication> {
    return this.t.call({ method: 'POST', path: `${MON}/links/`, body, auth: 'none' }, options);
  }

  socialPost(body: Body<M['rewriteSocialPost']>, options?: RequestOptions): Promise<Ok<M['rewriteSocialPost']>> {
    return this.t.call({ method: 'POST', path: `${MON}/social-post/`, body, auth: 'none' }, options);
  }

  request(applicationId: string, accessSecret: string, options?: RequestOptions): Promise<Ok<M['getInstantApplication']>> {
    return this.fetchJson(`${MON}/requests/${encodeURIComponent(applicationId)}/`, { access_secret: accessSecret }, 'none', options);
  }

  profile(applicationId: string, accessSecret: string, options?: RequestOptions): Promise<Ok<M['getInstantProfile']>> {
    return this.fetchJson(`${MON}/profile/${encodeURIComponent(applicationId)}/`, { access_secret: accessSecret }, 'none', options);
  }

  updateProfile(
    applicationId: string,
    accessSecret: string,
    body: Body<M['updateInstantProfile']>,
    options?: RequestOptions,
  ): Promise<Ok<M['updateInstantProfile']>> {
    return this.t.call(
      { method: 'PATCH', path: `${MON}/profile/${encodeURIComponent(applicationId)}/`, query: { access_secret: accessSecret }, body, auth: 'none' },
      options,
    );
  }
}

export class CwClient {
  readonly transport: Transport;
  readonly products: ProductsResource;
  readonly programs: ProgramsResource;
  readonly links: LinksResource;
  readonly conversions: ConversionsResource;
  readonly clicks: ClicksResource;
  readonly postback: PostbackResource;
  readonly events: EventsResource;
  readonly reporting: ReportingResource;
  readonly feeds: FeedsResource;
  readonly monetize: MonetizeResource;
  readonly payouts: PayoutsResource;
  readonly inquiries: InquiriesResource;
  readonly codes: CodesResource;
  readonly balance: BalanceResource;

  constructor(options: ClientOptions = {}) {
    const t = (this.transport = new Transport(options));
    this.products = new ProductsResource(t);
    this.programs = new ProgramsResource(t);
    this.links = new LinksResource(t);
    this.conversions = new ConversionsResource(t);
    this.clicks = new ClicksResource(t);
    this.postback = new PostbackResource(t);
    this.events = new EventsResource(t, PUB, 'publisher');
    this.reporting = new ReportingResource(t);
    this.feeds = new FeedsResource(t);
    this.monetize = new MonetizeResource(t);
    this.payouts = new PayoutsResource(t);
    this.inquiries = new InquiriesResource(t);
    this.codes = new CodesResource(t);
    this.balance = new BalanceResource(t);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** The account, the credential's access and its limits. */
  me(options?: RequestOptions): Promise<T.Account> {
    return this.transport.call({ method: 'GET', path: `${PUB}/me/`, auth: 'publisher' }, options);
  }

  paymentStatus(options?: RequestOptions): Promise<T.PaymentStatus> {
    return this.transport.call({ method: 'GET', path: `${PUB}/payment-status/`, auth: 'publisher' }, options);
  }

  /** Conversions and commission per group (day, week, month, subid, campaign, status). */
  report(query: Query<P['getReport']> = {}, options?: RequestOptions): Promise<T.Report> {
    return this.transport.call({ method: 'GET', path: `${PUB}/reports/`, query, auth: 'publisher' }, options);
  }

  /** Offers pilot (`offersCredential`). */
  offers(query: Query<P['listOffers']>, options?: RequestOptions): PageIterator<T.OfferPage, ItemOf<T.OfferPage>> {
    return new PageIterator<T.OfferPage, ItemOf<T.OfferPage>>(
      (q) => this.transport.call({ method: 'GET', path: `${PUB}/offers/`, query: q, auth: 'offers' }, options),
      { ...query },
      byPageNumber,
      (p) => p.data as ItemOf<T.OfferPage>[],
    );
  }

  trendingOpportunities(query: Query<P['listTrendingOpportunities']> = {}, options?: RequestOptions): Promise<T.TrendingOpportunities> {
    return this.transport.call({ method: 'GET', path: `${PUB}/trending-opportunities/`, query, auth: 'publisher' }, options);
  }
}
