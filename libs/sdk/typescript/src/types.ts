/** Names for the generated types (./generated/), so callers need not spell out operations. */
import type { operations as Publisher } from './generated/publisher.js';
import type { operations as Reporting } from './generated/reporting.js';
import type { operations as Monetize } from './generated/monetize.js';
import type { operations as Feeds } from './generated/feeds.js';

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's 200 or 201 answer. */
export type Ok<O> = O extends { responses: infer R }
  ? (R extends { 200: infer A } ? JsonOf<A> : never) | (R extends { 201: infer C } ? JsonOf<C> : never)
  : never;
/** An operation's query parameters. */
export type Query<O> = O extends { parameters: { query?: infer Q } } ? ([Q] extends [never | undefined] ? Record<string, never> : NonNullable<Q>) : never;
/** An operation's JSON request body. */
export type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export type { Publisher as PublisherOperations, Reporting as ReportingOperations, Monetize as MonetizeOperations, Feeds as FeedsOperations };

type Item<P> = P extends { data: Array<infer I> } ? I : never;

export type Account = Ok<Publisher['getAccount']>;
export type PaymentStatus = Ok<Publisher['getPaymentStatus']>;
export type ProductPage = Ok<Publisher['searchProducts']>;
export type Product = ProductPage['products'][number];
export type ProductSearch = Query<Publisher['searchProducts']>;
export type ProductLookup = Query<Publisher['lookupProducts']>;
export type ProgramPage = Ok<Publisher['listPrograms']>;
export type Program = Item<ProgramPage>;
export type ProgramApplication = Ok<Publisher['applyToProgram']>;
export type LinkPage = Ok<Publisher['listLinks']>;
export type Link = Ok<Publisher['createLink']>;
export type LinkRequest = Body<Publisher['createLink']>;
export type LinkBatchResult = Ok<Publisher['createLinkBatch']>;
export type ConversionPage = Ok<Publisher['listConversions']>;
export type Conversion = Item<ConversionPage>;
export type Report = Ok<Publisher['getReport']>;
export type PayoutPage = Ok<Publisher['listPayouts']>;
export type InquiryPage = Ok<Publisher['listInquiries']>;
export type Inquiry = Ok<Publisher['getInquiry']>;
export type CodePage = Ok<Publisher['listCodes']>;
export type Code = Item<CodePage>;
export type Payout = Ok<Publisher['getPayout']>;
export type PayoutStatement = Ok<Publisher['getPayoutStatement']>;
export type BalanceTransactionPage = Ok<Publisher['listBalanceTransactions']>;
export type BalanceTransaction = Item<BalanceTransactionPage>;
export type ClickPage = Ok<Publisher['listClicks']>;
export type Click = Item<ClickPage>;
export type PostbackConfig = Ok<Publisher['getPostback']>;
export type PostbackDeliveryPage = Ok<Publisher['listPostbackDeliveries']>;
export type PostbackDelivery = Item<PostbackDeliveryPage>;
export type EventPage = Ok<Publisher['listEvents']>;
/**
 * An event of the account: the body of a postback and of an events feed entry. A sale event
 * (`sale.*`, with `conversion`) or a payout event (`payout.paid` / `payout.failed`, with `payout`);
 * narrow on `type`, and ignore types you do not know (more may be added).
 */
export type AccountEvent = Item<EventPage>;
/** A sale event (`sale.created`, `sale.approved`, `sale.declined`, `sale.reversed`): the conversion as of the event. */
export type SaleEvent = Extract<AccountEvent, { conversion: unknown }>;
/** `payout.paid` / `payout.failed` (postbacks: opt-in event types): the payout as `payouts.get` answers it. */
export type PayoutEvent = Extract<AccountEvent, { payout: unknown }>;
export type OfferPage = Ok<Publisher['listOffers']>;
export type TrendingOpportunities = Ok<Publisher['listTrendingOpportunities']>;
export type SalesPage = Ok<Reporting['listSales']>;
export type Sale = Item<SalesPage>;
export type SubidSalesPage = Ok<Reporting['listSubidSales']>;
export type SalesSummary = Ok<Reporting['salesSummary']>;
export type FeedUrl = Ok<Feeds['getFeedUrl']>;
export type InstantApplication = Ok<Monetize['requestInstantLinks']>;
