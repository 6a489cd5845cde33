/**
 * The whole platform in one process: every app mounted on one port, routed by path as in
 * production, the job worker running, on the embedded engine unless MONGODB_URI is set.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { MemoryAccessVersions, RedisAccessVersions } from '@cw/auth';
import { loadConfig, type PlatformConfig } from '@cw/config';
import { addMissingPortalLogins, generateDemoData, progressBar, type DemoDataset } from '@cw-tools/demo-data';
import { createServiceApp, endEventStreams, requestIdFor, withNodeRoutes } from '@cw/http';
import { credentialsStore, localRunFiles, storeOf, writeCredentials } from '@cw-tools/admin-cli';
import { withProbes } from '@cw/health';
import { closeServer, createHttpServer, openBackgroundData, openServiceDeps } from '@cw/runtime';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as reportingApi } from '@cw/app-reporting-api';
import { createApp as monetizeApi } from '@cw/app-monetize-api';
import { createApp as feedService } from '@cw/app-feed-service';
import { createApp as mcpServer } from '@cw/app-mcp-server';
import { createApp as tracker } from '@cw/app-tracker';
import { createApp as portal, defaultWebDir, ensureWebBuilt, mailSettled, PAGE_PREFIXES, wantsHtml } from '@cw/app-portal';
import { createWorker } from '@cw/app-postback-worker';
import { startEngineThread, type EngineThread } from './engine-thread';
import { routeByPrefix } from './router';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DEFAULT_RUN = localRunFiles(REPO_ROOT, {});
/** The durable platform's credentials file: outside tools read it. */
export const CREDENTIALS_PATH = DEFAULT_RUN.credentialsPath;
/** Where `npm start` keeps the embedded engine's data (journal and snapshots). */
export const DATA_DIR = DEFAULT_RUN.dataDir!;
/** Where the running durable platform tells local tools (the admin CLI) its database. */
export const PLATFORM_INFO_PATH = DEFAULT_RUN.infoPath;

export interface CredentialsFile extends Omit<DemoDataset, 'counts'> {
  portal_url: string;
  base_url: string;
  feed_url: string;
  /** The bearer token of this platform's `/metrics` (METRICS_TOKEN, else one the platform made). */
  metrics_token?: string;
}

export interface PlatformOptions {
  env: Record<string, string | undefined>;
  /** Products to seed on an empty database (default SEED_PRODUCTS or 20000). */
  seedProducts?: number;
  /** Where to write the credentials file (default .local/credentials.json); null: nowhere. */
  credentialsPath?: string | null;
  /** Where to tell local tools this platform's database (default: platform.json beside the credentials file). */
  infoPath?: string;
  /** The embedded engine's data directory; null or absent: in memory (tests). */
  dataDir?: string | null;
  progress?: boolean;
  /** How often the worker dispatches postbacks (default 1000 ms; tests go faster). */
  workerIntervalMs?: number;
  /** Messages for the person running the platform. */
  say?: (message: string) => void;
  /** Where the platform's logs go (default: standard output). */
  logDestination?: NodeJS.WritableStream;
  /** The portal's mail folder (default: MAIL_DIR, else `mail/` beside the credentials file; none without either). */
  mailDir?: string;
  /** The built portal front end (default: dist/apps/portal/web, built when its sources changed). */
  webDir?: string;
  /**
   * Seeded engines to start from instead of seeding (tests: the run's seeds, one per size and
   * settings, tools/testing/src/seed-snapshots.ts); used only for an engine in memory.
   */
  seeds?: SeedStore;
}

export interface SeedStore {
  /** A snapshot of an engine seeded with this many products, and its dataset. */
  find(products: number): { snapshot: string; demo: DemoDataset } | undefined;
  /** Keeps the engine's state just after seeding, for the platforms after this one. */
  save(products: number, engine: Pick<EngineThread, 'saveSnapshot'>, demo: DemoDataset, at: number): Promise<void>;
}

export interface Platform {
  url: string;
  /** The database this platform uses (its embedded engine's, unless MONGODB_URI was set). */
  mongoUri: string;
  config: PlatformConfig;
  credentials?: CredentialsFile;
  credentialsPath?: string;
  seeded?: DemoDataset['counts'];
  stop(): Promise<void>;
}

/** The port is taken: found before anything is started or seeded. */
export class PortInUseError extends Error {}

/**
 * Listens at once, answering 503 in the error shape until the platform is ready, so a port in use
 * is found before the engine starts or the demo data is seeded.
 */
async function listenEarly(host: string, port: number): Promise<{ server: http.Server; serve(handler: http.RequestListener): void }> {
  let current: http.RequestListener = (req, res) => {
    const id = requestIdFor(req.headers['x-request-id'] as string | undefined);
    res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'X-Request-Id': id, 'Retry-After': '5' });
    res.end(JSON.stringify({ detail: 'The platform is starting.', code: 'service_unavailable', request_id: id }));
  };
  const server = createHttpServer((req, res) => current(req, res));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new PortInUseError(`port ${port} on ${host} is in use (another platform?): stop it, or start on another port with PORT=8081 npm start`)
          : e,
      ),
    );
    server.listen(port, host, () => resolveListen());
  });
  return { server, serve: (handler) => (current = handler) };
}

/**
 * What the local platform sets unless its environment does: http and loopback postback targets
 * allowed (the README's walkthrough receives postbacks on 127.0.0.1; services refuse them unless
 * POSTBACK_ALLOW_INSECURE is set), and a token for /metrics, kept in the credentials file.
 */
function localSettings(credentialsPath: string | undefined): Record<string, string> {
  let kept: unknown;
  try {
    kept = credentialsPath ? (JSON.parse(readFileSync(credentialsPath, 'utf8')) as { metrics_token?: unknown }).metrics_token : undefined;
  } catch {
    kept = undefined; // no file yet, or not ours to read: a new token
  }
  return {
    POSTBACK_ALLOW_INSECURE: 'true',
    METRICS_TOKEN: typeof kept === 'string' && kept ? kept : randomBytes(24).toString('base64url'),
    GEOIP_FIXTURE: LOCAL_GEOIP_FIXTURE,
    ASN_FIXTURE: LOCAL_ASN_FIXTURE,
  };
}

/**
 * The local platform's visitor countries for smart link routes: documentation addresses (which no
 * country database places) in a few countries, so a route can be tried locally with
 * `TRUST_PROXY_HOPS=1` and `X-Forwarded-For: 203.0.113.10` (DE). Any other address is placed by
 * the country database (docs/decisions/0062-smart-link-routes.md).
 */
export const LOCAL_GEOIP_FIXTURE = JSON.stringify({
  '203.0.113.0/26': 'DE',
  '203.0.113.64/26': 'FR',
  '203.0.113.128/26': 'GB',
  '203.0.113.192/26': 'AT',
  '198.51.100.0/25': 'US',
  '198.51.100.128/25': 'CA',
  '192.0.2.0/24': 'JP',
});

/**
 * The local platform's hosting network: a benchmarking address range (which no AS table places)
 * in AWS's AS, so a click flagged `datacenter` can be tried locally with `TRUST_PROXY_HOPS=1` and
 * `X-Forwarded-For: 198.18.0.7`. Every other address is judged by the package's AS table, loaded
 * in the background as the platform starts (docs/decisions/0067-datacenter-clicks.md).
 */
export const LOCAL_ASN_FIXTURE = JSON.stringify({ '198.18.0.0/24': 16509 });

export async function startPlatform(opts: PlatformOptions): Promise<Platform> {
  const credentialsPath = opts.credentialsPath === null ? undefined : (opts.credentialsPath ?? CREDENTIALS_PATH);
  const mailDir = opts.mailDir ?? opts.env.MAIL_DIR ?? (credentialsPath ? resolve(dirname(credentialsPath), 'mail') : undefined);
  const config = loadConfig({ ...localSettings(credentialsPath), ...opts.env, MAIL_DIR: mailDir }, { port: 8080 });
  const say = opts.say ?? (() => undefined);
  const { server, serve } = await listenEarly(config.host, config.port);
  try {
    return await startOn(server, serve, config, opts, say);
  } catch (e) {
    await closeServer(server, 1_000);
    throw e;
  }
}

async function startOn(
  server: http.Server,
  serve: (handler: http.RequestListener) => void,
  config: PlatformConfig,
  opts: PlatformOptions,
  say: (message: string) => void,
): Promise<Platform> {
  const webDir = opts.webDir ?? defaultWebDir();
  if (!opts.webDir) await ensureWebBuilt(webDir, say);
  let embedded: EngineThread | undefined;
  let mongoUri = config.mongodbUri;
  const products = opts.seedProducts ?? config.seedProducts;
  // Seeded engines to start from (tests: the run's seeds): only for an engine in memory.
  const runSeeds = !mongoUri && !opts.dataDir && opts.seeds ? { seed: opts.seeds.find(products), save: opts.seeds.save } : undefined;
  if (!mongoUri) {
    // The engine runs in a thread of its own (engine-thread.ts): its heap and queries are not the services'.
    const log = (m: string) => say(`data directory: ${m}`);
    embedded = await startEngineThread({ dataDir: opts.dataDir ?? undefined, snapshot: runSeeds?.seed?.snapshot, log }).catch((e: unknown) => {
      if (!runSeeds?.seed) throw e;
      // Replaced by a fresher seed while this platform read it: an empty engine, seeded below.
      runSeeds.seed = undefined;
      return startEngineThread({ log });
    });
    mongoUri = `${embedded.uri}/cw_platform`;
    const r = embedded.recovery;
    if (r && (r.documents || r.changes))
      say(`loaded ${opts.dataDir}: ${r.documents} documents from the snapshot, ${r.changes} journaled changes, in ${(r.ms / 1000).toFixed(1)}s`);
  }
  // Without Redis, access versions live in this process; the engine's thread reports every
  // writer's changes (the operator CLI's included) as it writes them, so the next request sees them.
  // What this process's own connections use: with the embedded engine, its Unix socket.
  const ownUri = embedded ? `${embedded.socketUri}/cw_platform` : mongoUri;
  let localVersions: MemoryAccessVersions | undefined;
  if (embedded && !config.redisUrl && !config.redisClusterNodes) {
    const engine = embedded;
    const versions = (localVersions = new MemoryAccessVersions(() => !engine.stopped));
    engine.onChange((change) => versions.bump(change));
  }
  const deps = await openServiceDeps(config, ownUri, 'platform', {
    localVersions,
    logDestination: opts.logDestination,
    indexes: 'migrate',
    reads: 'requests',
  });

  // A Redis Cluster created a moment ago: its replicas sync first, or the seed's access bumps fail.
  if (deps.versions instanceof RedisAccessVersions && !(await deps.versions.awaitReplicas(60_000, say)))
    say('no Redis replica acknowledged a write within 60 s: writes that change access will answer 503 until one does');
  let credentials: CredentialsFile | undefined;
  let seeded: DemoDataset['counts'] | undefined;
  let credentialsPath = opts.credentialsPath === null ? undefined : (opts.credentialsPath ?? CREDENTIALS_PATH);
  const store = storeOf({ mongodbUri: config.mongodbUri, dataDir: opts.dataDir });
  const addresses = {
    portal_url: config.portalUrl,
    base_url: `${config.portalUrl}/api/v1/publisher`,
    feed_url: config.feedUrl,
    metrics_token: config.metricsToken,
  };
  const restored = runSeeds?.seed?.demo;
  if (restored || (await deps.models.Publisher.estimatedDocumentCount()) === 0) {
    const at = Date.now();
    const data =
      restored ??
      (await generateDemoData(deps, {
        products,
        linkKey: config.secretKey,
        onProgress: opts.progress ? progressBar('seeding products') : undefined,
      }));
    if (!restored && runSeeds && embedded) await runSeeds.save(products, embedded, data, at);
    const { counts, ...rest } = data;
    seeded = counts;
    credentials = { ...addresses, ...rest };
    if (credentialsPath) {
      const written = writeCredentials(credentialsPath, store, credentials);
      if (written.moved) say(written.moved);
      credentialsPath = written.path;
    }
  } else if (credentialsPath && credentialsStore(credentialsPath) === store) {
    // The keys stay valid (they are in the database); only the addresses follow this start's config.
    const kept = JSON.parse(readFileSync(credentialsPath, 'utf8')) as CredentialsFile;
    credentials = { ...structuredClone(kept), ...addresses };
    // Seeded before the portal existed: its people are added now, and the file gains their logins.
    if (await addMissingPortalLogins(deps.data, credentials)) say(`added portal logins to ${credentialsPath}`);
    if (JSON.stringify(credentials) !== JSON.stringify(kept)) writeCredentials(credentialsPath, store, credentials);
  } else if (credentialsPath) {
    say(
      `${credentialsPath} does not hold this database's keys (keys are stored only as hashes): issue new ones with \`npm run admin -- credential:issue\`, or start over with \`npm run reset\``,
    );
  }

  const appDeps = {
    config,
    logger: deps.logger,
    data: deps.data,
    limiter: deps.limiter,
    slots: deps.slots,
    metrics: deps.metrics,
    caches: deps.caches,
  };
  // The worker reads through a connection of its own: no request time budget on background work.
  const background = await openBackgroundData(deps, ownUri);
  const worker = createWorker({
    db: background.db.connection.db!,
    logger: deps.logger,
    config,
    data: background.data,
    slots: deps.slots,
    processEveryMs: opts.workerIntervalMs,
    registry: deps.metrics.registry,
  });
  await worker.start();

  const edge = createServiceApp({
    name: 'platform',
    logger: deps.logger,
    limiter: deps.limiter,
    ipLimit: config.rateLimits.ip,
    trustProxyHops: config.trustProxyHops,
  });

  const trackerApp = tracker(appDeps);
  const portalKoa = portal(appDeps, { webDir, onMail: (path) => say(`mail: ${path}`) });
  const portalApp = portalKoa.callback();
  const publisherApp = publisherApi(appDeps).callback();
  const handler = routeByPrefix(
    [
      // `/`: the portal for a browser, the API index for any other client.
      { prefixes: [], exact: ['/'], handler: (req, res) => (wantsHtml(req.headers.accept) ? portalApp(req, res) : publisherApp(req, res)) },
      { prefixes: ['/api/v1/publisher', '/docs'], handler: publisherApp },
      { prefixes: ['/portal', '/oauth', '/.well-known', ...PAGE_PREFIXES], handler: portalApp },
      { prefixes: ['/api/v1/affiliate-reporting', '/Apiv3/json'], handler: reportingApi(appDeps).callback() },
      { prefixes: ['/api/v1/monetize'], handler: monetizeApi(appDeps).callback() },
      { prefixes: ['/api/v1/affiliates/feed', '/api/v1/feeds'], handler: feedService(appDeps).callback() },
      { prefixes: ['/api/v1/mcp'], handler: mcpServer(appDeps).callback() },
      { prefixes: ['/c', '/api/v1/track'], handler: trackerApp.callback() },
    ],
    edge.callback(),
  );
  // The tracker's node route (the redirect of cached codes) first, as its own server mounts it.
  serve(
    withNodeRoutes(
      trackerApp.nodeRoutes,
      withProbes(handler, {
        checks: deps.checks,
        registry: deps.metrics.registry,
        metricsToken: config.metricsToken,
        requestId: (req) => requestIdFor(req.headers['x-request-id'] as string | undefined),
      }),
    ),
  );
  const port = (server.address() as AddressInfo).port;
  const infoPath = opts.infoPath ?? (opts.credentialsPath === null ? undefined : resolve(dirname(opts.credentialsPath ?? CREDENTIALS_PATH), 'platform.json'));
  if (infoPath) {
    mkdirSync(dirname(infoPath), { recursive: true });
    writeFileSync(infoPath, `${JSON.stringify({ url: `http://${config.host}:${port}`, mongodb_uri: mongoUri, store, pid: process.pid }, null, 2)}\n`, {
      mode: 0o600,
    });
  }

  return {
    url: `http://${config.host}:${port}`,
    mongoUri,
    config,
    credentials,
    credentialsPath: credentials ? credentialsPath : undefined,
    seeded,
    stop: async () => {
      endEventStreams();
      await closeServer(server, 5_000);
      await trackerApp.clicks.close();
      await trackerApp.addresses.close();
      await worker.stop();
      // The portal's mail still queued goes out before the database closes (its links are stored there).
      await mailSettled(portalKoa);
      await background.db.close();
      await deps.close();
      if (infoPath) rmSync(infoPath, { force: true });
      await embedded?.stop();
    },
  };
}
