/**
 * The one typed, validated configuration loader. Only main.ts files call it. Every problem in the
 * environment is collected and reported at once.
 */
import { keyRing, parseSecretKeys, type KeyRing } from './key-ring';
export const RATE_LIMIT_BUDGETS = {
  ip: { env: 'RATELIMIT_IP_PER_MIN', default: 600, doc: 'per client address, before the credential is looked at' },
  products: { env: 'RATELIMIT_PRODUCTS_PER_MIN', default: 60, doc: 'search and lookup, shared, per publisher account' },
  trending: { env: 'RATELIMIT_TRENDING_PER_MIN', default: 60, doc: 'trending opportunities, per account' },
  account: { env: 'RATELIMIT_ACCOUNT_PER_MIN', default: 60, doc: '/me/ and /payment-status/, per account' },
  programs: { env: 'RATELIMIT_PROGRAMS_PER_MIN', default: 60, doc: 'programs, joinable, apply, per account' },
  links: { env: 'RATELIMIT_LINKS_PER_MIN', default: 120, doc: 'links list, create and batch (a batch counts once), per account' },
  reporting: { env: 'RATELIMIT_REPORTING_PER_MIN', default: 60, doc: 'conversions, reports, clicks, per account' },
  postbacks: { env: 'RATELIMIT_POSTBACKS_PER_MIN', default: 30, doc: 'postback configuration, test and deliveries, per account' },
  offers: { env: 'RATELIMIT_OFFERS_PER_MIN', default: 60, doc: 'offers (offers credential), per account' },
  reportingToken: { env: 'RATELIMIT_REPORTING_TOKEN_PER_MIN', default: 60, doc: 'reporting-token API and /Apiv3/json, per account' },
  monetize: { env: 'RATELIMIT_MONETIZE_PER_MIN', default: 30, doc: 'instant monetization, per client address' },
  feeds: { env: 'RATELIMIT_FEEDS_PER_MIN', default: 30, doc: 'product feeds, per account' },
  mcp: { env: 'RATELIMIT_MCP_PER_MIN', default: 120, doc: 'MCP requests, per account (or address when anonymous)' },
  merchant: { env: 'RATELIMIT_MERCHANT_PER_MIN', default: 600, doc: 'merchant conversion intake and status changes, per merchant' },
  signinAddress: {
    env: 'RATELIMIT_SIGNIN_ADDRESS_PER_MIN',
    default: 20,
    doc: 'portal sign-in, sign-up, password reset and re-authentication attempts, per client address',
  },
  signinEmail: {
    env: 'RATELIMIT_SIGNIN_EMAIL_PER_MIN',
    default: 5,
    doc: 'portal sign-in and re-authentication attempts per e-mail address in any 60 seconds (none counted from a trusted device)',
  },
  portal: { env: 'RATELIMIT_PORTAL_PER_MIN', default: 600, doc: "the portal's own API, per signed-in person" },
  oauthRegister: { env: 'RATELIMIT_OAUTH_REGISTER_PER_MIN', default: 10, doc: 'OAuth dynamic client registrations (POST /oauth/register), per client address' },
} as const;

export type BudgetName = keyof typeof RATE_LIMIT_BUDGETS;

/**
 * The portal's sign-in guard (docs/portal.md "Sign-in limits"): failed sign-ins and
 * re-authentications counted per e-mail address and per client address, each budget holding over
 * any span of `windowSeconds` whatever the window boundaries, and the trust a device earns by
 * signing in.
 */
export interface SigninLimits {
  /** Failures one e-mail address may take in any span of `windowSeconds` (ASVS 2.2.1: at most 100 an hour); beyond, 429 but from trusted devices, and an unlock link is mailed. */
  accountFailures: number;
  /** Failures one client address may make in any span of `windowSeconds`. */
  addressFailures: number;
  windowSeconds: number;
  /** Failures in a row from a trusted device after which it loses that trust. */
  deviceFailures: number;
  /** How long a device that signed in stays trusted (renewed at each sign-in from it). */
  deviceTrustDays: number;
}

export interface PlatformConfig {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** Absent: the dev stack starts the embedded engine; app mains require it. */
  mongodbUri?: string;
  /** Absent: the in-memory limiter (correct for one process only). */
  redisUrl?: string;
  /** Redis Cluster seed nodes (`host:port`), instead of REDIS_URL. */
  redisClusterNodes?: Array<{ host: string; port: number }>;
  portalUrl: string;
  trackingUrl: string;
  feedUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The base key (SECRET_ENCRYPTION_KEY): what must never change derives from it (link codes, address hashes). */
  secretKey: Buffer;
  /** Rotatable keys (SECRET_KEYS, then the base key): postback secrets, feed URL and click id signatures. */
  keys: KeyRing;
  /**
   * Allow http:// and loopback or private postback targets (POSTBACK_ALLOW_INSECURE; false unless
   * set, in every environment: the local platform and tests with a local receiver set it).
   */
  postbackAllowInsecure: boolean;
  /**
   * The bearer token /metrics asks for (METRICS_TOKEN, at least 16 characters); absent: /metrics
   * is not served (404), so a process never exposes its metrics to whoever reaches its port.
   */
  metricsToken?: string;
  /** Budget of one postback attempt (connect, send, answer). */
  postbackTimeoutMs: number;
  /** The retry schedule's minute: 60,000 ms; tests shorten it to run the schedule quickly. */
  postbackRetryUnitMs: number;
  /** How often a worker process looks for postback work (outbox, due attempts) and due jobs. */
  workerPollMs: number;
  /** Postback attempts in flight in one worker process, all receivers together. */
  postbackConcurrency: number;
  /** Postback attempts in flight to one configuration, all workers together (one receiver cannot take every slot). */
  postbackConfigConcurrency: number;
  /** Consecutive failed attempts after which a configuration's deliveries are paused (the circuit breaker opens). */
  postbackBreakerFailures: number;
  /** The first pause of an open breaker; each failed probe doubles it (at most 32 times). */
  postbackBreakerPauseMs: number;
  /** Days a succeeded delivery is kept (without its body). */
  postbackSucceededRetentionDays: number;
  /** Days a failed or dead delivery is kept (with its body, so it can be redelivered). */
  postbackFailedRetentionDays: number;
  trendingEnabled: boolean;
  /** Instant-monetization applications one client address may open per 24 hours. */
  monetizeApplicationsPerDay: number;
  /** Days a creator has to claim an instant-monetization application. */
  monetizeClaimDays: number;
  /**
   * Reverse proxies in front of the service: the client address is the X-Forwarded-For entry that
   * many from the right (a client cannot choose it by sending the header); 0: the peer address.
   */
  trustProxyHops: number;
  rateLimits: Record<BudgetName, number>;
  /**
   * The length of every rate-limit budget's window in seconds: 60 (the budgets are per minute).
   * Tests shorten it (RATELIMIT_WINDOW_SECONDS, NODE_ENV=test only) to meet a Retry-After in
   * seconds instead of a minute.
   */
  rateLimitWindowSeconds: number;
  signin: SigninLimits;
  clickFlushIntervalMs: number;
  /** How often the worker counts the tracker's stored click batches, all stored since together (the clicks' lag in the stats). */
  clickCountIntervalMs: number;
  /** How often the worker compacts low-traffic accounts' clicks (merges their small buckets; 0: never). */
  clickCompactIntervalMs: number;
  /** After SIGTERM: how long /readyz answers 503 before the server stops taking requests (the balancer's grace). */
  shutdownDrainMs: number;
  /** Event streams (`/events/stream/`) an account may hold open at once, across instances with Redis. */
  eventStreamsPerAccount: number;
  /** How often an open event stream looks for new events. */
  eventsPollMs: number;
  /** How often an idle event stream sends a heartbeat comment. */
  eventsHeartbeatMs: number;
  /** Clicks held while the database cannot take them; beyond, the oldest are dropped (metric and log). */
  clickBufferMax: number;
  /**
   * The country database of smart link routes (GEOIP_DATABASE): a MaxMind-format (.mmdb) country
   * file; unset: the one the `@ip-location-db/geo-whois-asn-country-mmdb` package ships.
   */
  geoipDatabase: string | undefined;
  /**
   * Addresses placed by hand before the database (GEOIP_FIXTURE): inline JSON or a JSON file's path,
   * `{"203.0.113.0/24": "DE", "2001:db8::7": "FR"}`; for the local platform and tests.
   */
  geoipFixture: string | undefined;
  /**
   * The AS table of the `datacenter` bot flag (ASN_DATABASE): a directory holding
   * `asn-ipv4-num.csv` and `asn-ipv6-num.csv` in the `@ip-location-db/asn` package's format;
   * unset: that package's; `off`: no table (ASN_FIXTURE only).
   */
  asnDatabase: string | undefined;
  /** Addresses placed in an AS by hand before the table (ASN_FIXTURE): `{"198.18.0.0/24": 16509}`; for the local platform and tests. */
  asnFixture: string | undefined;
  /** AS numbers added to (`123`) or removed from (`-123`) the hosting list (HOSTING_ASNS, comma separated). */
  hostingAsns: string | undefined;
  /** maxTimeMS of catalog queries: over it the API answers 503 rather than wait. */
  catalogQueryTimeoutMs: number;
  /** maxTimeMS of every other read a request makes (a query setting its own keeps it): over it the API answers 503. */
  requestQueryTimeoutMs: number;
  /** Product pages kept per process, served while the catalog and the caller's access are unchanged (0: off). */
  productPageCacheEntries: number;
  /** Catalog rows kept per process for pages read as ids, under one catalog version (0: off). */
  productRowCacheEntries: number;
  /** Longest a cached product page is served (rows ahead of it may expire by time meanwhile). */
  productPageCacheMaxAgeMs: number;
  /** Indicative rates to USD (currency -> decimal string) for multi-currency totals. */
  usdRates: Record<string, string>;
  /** Money out: the network as the payer (its bank account debited by SEPA files) and the lowest threshold per payout currency. */
  payouts: {
    payerName: string;
    payerIban: string;
    payerBic: string;
    minimumThresholds: Record<string, string>;
    /** How long a new or changed payout method holds the next payout (account-takeover defence). */
    methodHoldMs: number;
    /** Payee countries (ISO alpha-2) whose payouts wait for a complete tax profile; `*`: every payee. */
    taxProfileRequiredCountries: string[];
    /** The payer's US taxpayer id (EIN) and address, as a 1099-NEC filing names them (tax:year-end). */
    payerTin: string;
    payerAddress: string;
    /** Per tax year (from that year on), the USD amount at or above which a US payee gets a 1099-NEC. */
    form1099NecThresholds: Record<string, string>;
    /**
     * The network's legal details as its self-billing statements name it (the recipient of the
     * publishers' services, who issues each statement on the publisher's behalf): legal name,
     * postal address lines, country (ISO alpha-2), VAT id, tax number, and the VAT wording for a
     * publisher business in the network's own country (docs/decisions, statements and VAT).
     */
    network: { legalName: string; address: string[]; country: string; vatId: string; taxId: string; domesticVatText: string };
  };
  /** Products the local platform seeds into an empty database. */
  seedProducts: number;
  /** Where mail goes: an SMTP server (SMTP_URL, production), else files in `mailDir`. */
  smtpUrl?: string;
  /** The local platform's mail folder (MAIL_DIR; `.local/mail` under npm start); unset with no SMTP_URL: mail is only logged as sent. */
  mailDir?: string;
  /** The From of the portal's mail. */
  mailFrom: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export interface ConfigDefaults {
  port: number;
}

const DEV_SECRET_KEY = Buffer.alloc(32, 7);
/** Indicative USD rates of the multi-currency totals (payment status), overridable. */
export const DEFAULT_USD_RATES = 'EUR:1.08,GBP:1.27';

export function loadConfig(env: Env, defaults: ConfigDefaults): PlatformConfig {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };
  const url = (name: string, fallback: string | undefined, protocols: string[]): string | undefined => {
    const raw = str(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) throw new Error('protocol');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be a URL (${protocols.join(' or ')}), got "${raw}"`);
      return fallback;
    }
  };

  const nodeEnvRaw = str('NODE_ENV') ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnvRaw)) problems.push(`NODE_ENV must be development, production or test, got "${nodeEnvRaw}"`);
  const nodeEnv = (['development', 'production', 'test'].includes(nodeEnvRaw) ? nodeEnvRaw : 'development') as PlatformConfig['nodeEnv'];
  const host = str('HOST') ?? '127.0.0.1';
  const port = int('PORT', defaults.port, 0, 65535);
  const portalUrl = url('PORTAL_URL', `http://127.0.0.1:${port}`, ['http:', 'https:'])!;
  const logLevel = (str('LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : 'info')) as PlatformConfig['logLevel'];
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);

  let secretKey = DEV_SECRET_KEY;
  const rawKey = str('SECRET_ENCRYPTION_KEY');
  if (rawKey !== undefined) {
    const decoded = Buffer.from(rawKey, 'base64');
    if (decoded.length !== 32) problems.push('SECRET_ENCRYPTION_KEY must be 32 bytes, base64-encoded');
    else secretKey = decoded;
  } else if (nodeEnv === 'production') {
    problems.push('SECRET_ENCRYPTION_KEY is required in production (32 bytes, base64)');
  }
  if (str('REDIS_URL') !== undefined && str('REDIS_CLUSTER_NODES') !== undefined)
    problems.push('REDIS_URL and REDIS_CLUSTER_NODES exclude each other: one Redis, or one cluster');
  const keys = keyRing(secretKey, parseSecretKeys(str('SECRET_KEYS'), problems));
  const metricsToken = str('METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,512}$/.test(metricsToken))
    problems.push('METRICS_TOKEN must be 16 to 512 printable characters without spaces (e.g. `openssl rand -hex 32`)');

  const usdRates: Record<string, string> = {};
  const ratesRaw = str('INDICATIVE_USD_RATES') ?? DEFAULT_USD_RATES;
  for (const pair of ratesRaw.split(',')) {
    const m = /^\s*([A-Z]{3})\s*[:=]\s*([0-9]{1,6}(\.[0-9]{1,8})?)\s*$/.exec(pair);
    if (!m?.[1] || !m[2] || Number(m[2]) === 0) {
      problems.push(`INDICATIVE_USD_RATES must be a list like "EUR:1.08,GBP:1.27" (positive decimals), got "${ratesRaw}"`);
      break;
    }
    usdRates[m[1]] = m[2];
  }
  usdRates.USD = '1';

  const minimumThresholds: Record<string, string> = {};
  const minimaRaw = str('PAYOUT_MINIMUM_THRESHOLDS') ?? 'EUR:20.00,USD:25.00,GBP:20.00';
  for (const pair of minimaRaw.split(',')) {
    const m = /^\s*([A-Z]{3})\s*[:=]\s*([0-9]{1,9}(\.[0-9]{1,2})?)\s*$/.exec(pair);
    if (!m?.[1] || !m[2]) {
      problems.push(`PAYOUT_MINIMUM_THRESHOLDS must be a list like "EUR:20.00,USD:25.00" (decimals), got "${minimaRaw}"`);
      break;
    }
    minimumThresholds[m[1]] = m[2];
  }

  const taxCountriesRaw = str('PAYOUT_TAX_PROFILE_COUNTRIES') ?? 'US';
  // `none`: no payee needs one (a network that files nothing); `*`: every payee.
  const taxProfileRequiredCountries =
    taxCountriesRaw.trim().toLowerCase() === 'none'
      ? []
      : taxCountriesRaw
          .split(',')
          .map((c) => c.trim().toUpperCase())
          .filter(Boolean);
  if (taxProfileRequiredCountries.some((c) => c !== '*' && !/^[A-Z]{2}$/.test(c)))
    problems.push(`PAYOUT_TAX_PROFILE_COUNTRIES must be ISO alpha-2 countries like "US,CA", "*" or "none", got "${taxCountriesRaw}"`);
  const payerTin = str('PAYOUT_PAYER_TIN') ?? '';
  if (payerTin && !/^\d{2}-?\d{7}$/.test(payerTin)) problems.push(`PAYOUT_PAYER_TIN must be an EIN (12-3456789), got "${payerTin}"`);
  const form1099NecThresholds: Record<string, string> = {};
  // 2026: $2,000 (One Big Beautiful Bill Act, section 70433: payments after 31 December 2025; indexed from 2027).
  const thresholdsRaw = str('TAX_1099_NEC_THRESHOLDS') ?? '2025:600.00,2026:2000.00';
  for (const pair of thresholdsRaw.split(',')) {
    const m = /^\s*(\d{4})\s*[:=]\s*([0-9]{1,9}(\.[0-9]{1,2})?)\s*$/.exec(pair);
    if (!m?.[1] || !m[2]) {
      problems.push(`TAX_1099_NEC_THRESHOLDS must be a list like "2025:600.00,2026:2000.00" (year: USD), got "${thresholdsRaw}"`);
      break;
    }
    form1099NecThresholds[m[1]] = m[2];
  }

  const networkCountry = (str('PAYOUT_NETWORK_COUNTRY') ?? 'DE').toUpperCase();
  if (!/^[A-Z]{2}$/.test(networkCountry)) problems.push(`PAYOUT_NETWORK_COUNTRY must be an ISO alpha-2 country like "DE", got "${networkCountry}"`);

  const rateLimits = {} as Record<BudgetName, number>;
  for (const [name, b] of Object.entries(RATE_LIMIT_BUDGETS)) rateLimits[name as BudgetName] = int(b.env, b.default, 1, 10_000_000);
  const rateLimitWindowSeconds = int('RATELIMIT_WINDOW_SECONDS', 60, 1, 60);
  if (rateLimitWindowSeconds !== 60 && nodeEnv !== 'test')
    problems.push('RATELIMIT_WINDOW_SECONDS is for tests (NODE_ENV=test): the RATELIMIT_*_PER_MIN budgets are per minute');

  const config: PlatformConfig = {
    nodeEnv,
    host,
    port,
    mongodbUri: url('MONGODB_URI', undefined, ['mongodb:', 'mongodb+srv:']),
    redisUrl: url('REDIS_URL', undefined, ['redis:', 'rediss:']),
    redisClusterNodes: clusterNodes(str('REDIS_CLUSTER_NODES'), problems),
    portalUrl,
    trackingUrl: url('TRACKING_URL', portalUrl, ['http:', 'https:'])!,
    feedUrl: url('FEED_URL', portalUrl, ['http:', 'https:'])!,
    logLevel,
    secretKey,
    keys,
    postbackAllowInsecure: bool('POSTBACK_ALLOW_INSECURE', false),
    metricsToken,
    postbackTimeoutMs: int('POSTBACK_TIMEOUT_MS', 10_000, 100, 60_000),
    postbackRetryUnitMs: int('POSTBACK_RETRY_UNIT_MS', 60_000, 1, 3_600_000),
    workerPollMs: int('WORKER_POLL_MS', 250, 10, 60_000),
    postbackConcurrency: int('POSTBACK_CONCURRENCY', 256, 1, 10_000),
    postbackConfigConcurrency: int('POSTBACK_CONFIG_CONCURRENCY', 8, 1, 1_000),
    postbackBreakerFailures: int('POSTBACK_BREAKER_FAILURES', 10, 1, 1_000),
    postbackBreakerPauseMs: int('POSTBACK_BREAKER_PAUSE_MS', 60_000, 10, 3_600_000),
    postbackSucceededRetentionDays: int('POSTBACK_SUCCEEDED_RETENTION_DAYS', 7, 1, 365),
    postbackFailedRetentionDays: int('POSTBACK_FAILED_RETENTION_DAYS', 30, 1, 365),
    trendingEnabled: bool('FEATURE_TRENDING', true),
    monetizeApplicationsPerDay: int('MONETIZE_APPLICATIONS_PER_DAY', 10, 1, 1_000_000),
    monetizeClaimDays: int('MONETIZE_CLAIM_DAYS', 30, 1, 3650),
    // TRUST_PROXY=true (before hops were counted) means one proxy.
    trustProxyHops: int('TRUST_PROXY_HOPS', bool('TRUST_PROXY', false) ? 1 : 0, 0, 10),
    rateLimits,
    rateLimitWindowSeconds,
    signin: {
      accountFailures: int('SIGNIN_ACCOUNT_FAILURES', 50, 1, 100),
      addressFailures: int('SIGNIN_ADDRESS_FAILURES', 100, 1, 100_000),
      windowSeconds: int('SIGNIN_FAILURE_WINDOW_SECONDS', 3600, 3600, 7 * 86_400),
      deviceFailures: int('SIGNIN_DEVICE_FAILURES', 5, 1, 20),
      deviceTrustDays: int('SIGNIN_DEVICE_TRUST_DAYS', 90, 1, 400),
    },
    clickFlushIntervalMs: int('CLICK_FLUSH_INTERVAL_MS', 250, 10, 60_000),
    clickCountIntervalMs: int('CLICK_COUNT_INTERVAL_MS', 1000, 10, 60_000),
    clickCompactIntervalMs: int('CLICK_COMPACT_INTERVAL_MS', 15 * 60_000, 0, 24 * 3_600_000),
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS', 5_000, 0, 120_000),
    eventStreamsPerAccount: int('EVENT_STREAMS_PER_ACCOUNT', 5, 1, 1000),
    eventsPollMs: int('EVENTS_POLL_MS', 250, 10, 60_000),
    eventsHeartbeatMs: int('EVENTS_HEARTBEAT_MS', 15_000, 100, 300_000),
    clickBufferMax: int('CLICK_BUFFER_MAX', 200_000, 10, 10_000_000),
    geoipDatabase: str('GEOIP_DATABASE'),
    geoipFixture: str('GEOIP_FIXTURE'),
    asnDatabase: str('ASN_DATABASE'),
    asnFixture: str('ASN_FIXTURE'),
    hostingAsns: str('HOSTING_ASNS'),
    catalogQueryTimeoutMs: int('CATALOG_QUERY_TIMEOUT_MS', 5000, 1, 600_000),
    requestQueryTimeoutMs: int('REQUEST_QUERY_TIMEOUT_MS', 10_000, 1, 600_000),
    productPageCacheEntries: int('PRODUCT_PAGE_CACHE_ENTRIES', 2000, 0, 1_000_000),
    productRowCacheEntries: int('PRODUCT_ROW_CACHE_ENTRIES', 20_000, 0, 1_000_000),
    productPageCacheMaxAgeMs: int('PRODUCT_PAGE_CACHE_MAX_AGE_MS', 5000, 1, 60_000),
    usdRates,
    payouts: {
      payerName: str('PAYOUT_PAYER_NAME') ?? 'CW Affiliate Network GmbH',
      payerIban: str('PAYOUT_PAYER_IBAN') ?? 'DE89370400440532013000',
      payerBic: str('PAYOUT_PAYER_BIC') ?? 'COBADEFFXXX',
      minimumThresholds,
      methodHoldMs: int('PAYOUT_METHOD_HOLD_HOURS', 72, 0, 24 * 90) * 3_600_000,
      taxProfileRequiredCountries,
      payerTin,
      payerAddress: str('PAYOUT_PAYER_ADDRESS') ?? 'Musterstrasse 1, 10115 Berlin, Germany',
      form1099NecThresholds,
      network: {
        legalName: str('PAYOUT_NETWORK_LEGAL_NAME') ?? str('PAYOUT_PAYER_NAME') ?? 'CW Affiliate Network GmbH',
        address: (str('PAYOUT_NETWORK_ADDRESS') ?? str('PAYOUT_PAYER_ADDRESS') ?? 'Musterstrasse 1, 10115 Berlin, Germany')
          .split(/\s*[;,|]\s*/)
          .filter(Boolean),
        country: networkCountry,
        vatId: str('PAYOUT_NETWORK_VAT_ID') ?? 'DE123456789',
        taxId: str('PAYOUT_NETWORK_TAX_ID') ?? '27/123/45678',
        domesticVatText:
          str('PAYOUT_NETWORK_DOMESTIC_VAT_TEXT') ??
          'Domestic supply: the amounts above are the commission paid; a supplier registered for VAT invoices the VAT on it separately.',
      },
    },
    seedProducts: int('SEED_PRODUCTS', 20_000, 1, 20_000_000),
    smtpUrl: url('SMTP_URL', undefined, ['smtp:', 'smtps:']),
    mailDir: str('MAIL_DIR'),
    mailFrom: str('MAIL_FROM') ?? 'Publisher portal <no-reply@localhost>',
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** For app mains: MONGODB_URI must be set when an app runs on its own. */
export function requireMongoUri(config: PlatformConfig): string {
  if (!config.mongodbUri) throw new ConfigError(['MONGODB_URI is required to run this service on its own (npm start provides an embedded engine)']);
  return config.mongodbUri;
}

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Where tests run: a real MongoDB when MONGODB_URI is set (else the embedded engine), and Redis at
 * REDIS_URL or 127.0.0.1:6379. Validated like every other setting.
 */
/** REDIS_CLUSTER_NODES: `host:port,host:port,...` (any reachable nodes of the cluster; the client finds the rest). */
function clusterNodes(raw: string | undefined, problems: string[]): Array<{ host: string; port: number }> | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const nodes = raw.split(',').map((s) => s.trim());
  const parsed = nodes.map((n) => /^([A-Za-z0-9.:[\]-]+):(\d{1,5})$/.exec(n)).map((m) => (m ? { host: m[1]!, port: Number(m[2]) } : undefined));
  const bad = nodes.filter((_, i) => !parsed[i] || parsed[i]!.port > 65535);
  if (bad.length) {
    problems.push(`REDIS_CLUSTER_NODES must be host:port,host:port,..., got "${bad.join(', ')}"`);
    return undefined;
  }
  return parsed as Array<{ host: string; port: number }>;
}

export function loadTestTargets(env: Env = process.env): { mongodbUri?: string; redisUrl: string } {
  const c = loadConfig({ NODE_ENV: 'test', MONGODB_URI: env.MONGODB_URI, REDIS_URL: env.REDIS_URL }, { port: 0 });
  return { mongodbUri: c.mongodbUri, redisUrl: c.redisUrl ?? DEFAULT_REDIS_URL };
}

/** The browser test's Chromium: CHROMIUM_PATH, or Debian's /usr/bin/chromium. */
export function loadBrowserTarget(env: Env = process.env): { chromiumPath: string; chromiumPathSet: boolean } {
  const chromium = env.CHROMIUM_PATH?.trim();
  return { chromiumPath: chromium || '/usr/bin/chromium', chromiumPathSet: !!chromium };
}
