export { ensureLinks, linkCode, trackedUrl } from './tracked-links';
export type { EnsuredLink, LinkProduct, LinkSource, LinkSpec } from './tracked-links';
export {
  createLink,
  createLinkBatch,
  hostAllowed,
  LINK_BATCH_INPUT,
  LINK_REQUEST_INPUT,
  linkView,
  LIST_LINKS_INPUT,
  listLinks,
  SUBID_PATTERN,
} from './link-requests';
export type { LinkRequest, LinkView } from './link-requests';
export { addressHash, clickRecord, CLICKS_INPUT, listClicks } from './clicks';
export { ClickIds, readClickId } from './click-ids';
export {
  affiliateAttribution,
  ATTRIBUTION_TOKEN_CLOCK_SKEW_MS,
  ATTRIBUTION_TOKEN_LATE_REPORT_MS,
  ATTRIBUTION_TOKEN_PATTERN,
  ATTRIBUTION_TOKEN_TTL_MS,
  issuedAtOf,
  readAttributionToken,
  signAttributionToken,
  tokenTimeProblem,
} from './attribution-tokens';
export type { AffiliateAttribution, AttributionClaims } from './attribution-tokens';
export type { ClickClaims } from './click-ids';
export type { ClickRequest, ClickTarget } from './clicks';
export { BOT_REASONS, ClickRateCounter, RATE_MAX, RATE_WINDOW_MS, userAgentReason } from './bot-detection';
export { compileRoutes, DEVICES, deviceOf, isCountryCode, matchRoute, MAX_ROUTES, normalRoutes, ROUTES_INPUT } from './link-routes';
export type { CompiledRoute, Device, LinkRoute } from './link-routes';
export { CountryLookup, readFixture } from './visitor-country';
export { AsnTable, HOSTING_NETWORKS, hostingAsns, NetworkLookup, readAsnFixture } from './visitor-network';
export type { AsnAnswer, HostingNetwork, NetworkLookupOptions } from './visitor-network';
export {
  ATTENTION_INPUT,
  ATTENTION_SCHEMA,
  checkLinkHealth,
  HEALTH_SCHEMA,
  HEALTH_STATES,
  healthOf,
  linksLosingClicks,
  linksNeedingAttention,
  PRODUCT_FRESH_MS,
  targetState,
  UNHEALTHY_STATES,
} from './link-health';
export { LANDING_HOST_INTERVAL_MS, LANDING_TIMEOUT_MS, landingProbe } from './link-health-landing';
export type { LandingCheckOptions } from './link-health-landing';
export type { ClicksSince, HealthDeps, HealthPassOptions, HealthPassResult, HealthState, LandingProbe, ProductStates } from './link-health';
export type { BotReason } from './bot-detection';
export { CLICK_SCHEMA, LINK_SCHEMA } from './link.views';
export { CREATE_LINK, CREATE_LINK_BATCH, LINK_OPERATIONS, LIST_CLICKS, LIST_LINKS } from './link.operations';
export { CODE_PATTERN, destination, LANDING, REDIRECT_TARGETS_CACHE, RedirectResolver } from './redirect-targets';
export { LinkFallback } from './link-fallback';
export type { DeadReason, FallbackAccounts, FallbackAnswer, FallbackCatalog, FallbackPlan } from './link-fallback';
export type { RedirectRoute, RedirectTarget } from './redirect-targets';
export { CLICK_LIST_ORDER, KNOWN_LINKS_CACHE, LEGACY_CLICKS_EMPTY_CACHE, LINK_LIST_ORDER, LinksData, linksDomain } from './data/links.data';
export type { ClickCount, ClickFilter, ClickRow, CountedClick, HealthLinkRow, HealthUpdate, LinkRow } from './data/links.data';
export type { ClickDoc } from './data/click.schema';
export { BUCKET_MAX, BUCKET_WINDOW_MS, unpackBucket } from './data/click-bucket';
export type { ClickBucketDoc } from './data/click-bucket.schema';
export type { ClickCompactionDoc } from './data/click-compaction.schema';
export type { LinkDoc } from './data/link.schema';
export type { LinksDeps } from './deps';
