export {
  CwClient,
  BalanceResource,
  ClicksResource,
  CodesResource,
  ConversionsResource,
  EventsResource,
  FeedsResource,
  LinksResource,
  MonetizeResource,
  PayoutsResource,
  PostbackResource,
  ProductsResource,
  ProgramsResource,
  ReportingResource,
} from './client.js';
export { CwApiError } from './errors.js';
export type { ParamProblem } from './errors.js';
export { PageIterator } from './paginate.js';
export { Transport, VERSION } from './transport.js';
export type { Auth, ClientOptions, RequestOptions, RetryEvent, TokenProvider } from './transport.js';
export { backoffDelay, parseRetryAfter } from './retry.js';
export type { RetryOptions } from './retry.js';
export { generatePostbackSecret, PostbackVerificationError, signPostback, verifyPostback, verifyPostbackSignature } from './postbacks.js';
export type { HeadersLike, PostbackFailure, VerifyOptions } from './postbacks.js';
export { parseSse, streamEvents } from './events.js';
export {
  authorizationUrl,
  createPkce,
  discoverAuthorizationServer,
  exchangeCode,
  oauthTokenProvider,
  PUBLISHER_SCOPES,
  publisherResource,
  randomState,
  refreshTokens,
  registerPublicClient,
} from './oauth.js';
export type { AuthorizationServer, OAuthTokenProviderOptions, OAuthTokens } from './oauth.js';
export type { StreamedEvent, StreamOptions } from './events.js';
export type {
  Account,
  AccountEvent,
  BalanceTransaction,
  BalanceTransactionPage,
  Body,
  Click,
  ClickPage,
  Conversion,
  ConversionPage,
  EventPage,
  FeedsOperations,
  FeedUrl,
  InstantApplication,
  Link,
  LinkBatchResult,
  LinkPage,
  LinkRequest,
  MonetizeOperations,
  OfferPage,
  Ok,
  PaymentStatus,
  Payout,
  PayoutEvent,
  PayoutPage,
  PayoutStatement,
  PostbackConfig,
  PostbackDelivery,
  PostbackDeliveryPage,
  Product,
  ProductLookup,
  ProductPage,
  ProductSearch,
  Program,
  ProgramApplication,
  ProgramPage,
  PublisherOperations,
  Query,
  Report,
  ReportingOperations,
  Sale,
  SaleEvent,
  SalesPage,
  SalesSummary,
  SubidSalesPage,
  TrendingOpportunities,
} from './types.js';
