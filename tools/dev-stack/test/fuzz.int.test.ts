/**
 * Every route of every public app, fuzzed from the OpenAPI documents the platform serves, with
 * every credential kind (tools/testing/src/openapi-fuzz.ts). The oracle: never a 5xx; every
 * answer holds to its document (a status the operation declares, a media type declared for that
 * status, a body valid against its schema); every answer has an X-Request-Id and the four
 * RateLimit headers; every error is the one error shape naming that request id; no answer
 * carries a secret, or another account's id. The MCP endpoint gets malformed and random JSON-RPC
 * and must answer JSON-RPC, never a 5xx.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, anyCase, operationsOf, schemaErrors, storeGrant, type FuzzCase, type FuzzOperation, type OpenApiDocument } from '@cw-tools/testing';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { startPlatform, type Platform } from './support/test-platform';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const LIFTED = '10000000';
let platform: Platform;
let credentials: Array<string | undefined>;
let secrets: string[];
/** Per credential index: the account it belongs to (none for merchant tokens and junk). */
let accountOf: Array<string | undefined>;
let accounts: string[];
let ops: ReturnType<typeof operationsOf>;
/** Every log line the platform wrote during the run (debug level: the most it ever says). */
const logLines: string[] = [];
/** A full secret of any kind (display prefixes are short; these are 30+ characters after the prefix). */
const SECRET_SHAPE = /\b(?:live|demo|test|sandbox|read_only|rpt|ofr|ptl|mrc|mon|whsec)_[A-Za-z0-9_-]{30,}/;

const DOCS = [
  '/api/v1/publisher/openapi.json',
  '/api/v1/affiliate-reporting/openapi.json',
  '/api/v1/monetize/openapi.json',
  '/api/v1/feeds/openapi.json',
  '/api/v1/track/openapi.json',
  '/portal/api/openapi.json',
];
/** Stands for the portal session of publishers[0]'s owner: sent as its cookie, with its CSRF token. */
const SESSION = 'portal-session';
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  const budgets = Object.fromEntries(
    [
      'IP',
      'PRODUCTS',
      'TRENDING',
      'ACCOUNT',
      'PROGRAMS',
      'LINKS',
      'REPORTING',
      'POSTBACKS',
      'OFFERS',
      'REPORTING_TOKEN',
      'MONETIZE',
      'FEEDS',
      'MCP',
      'MERCHANT',
      'SIGNIN_ADDRESS',
      'SIGNIN_EMAIL',
      'PORTAL',
    ].map((b) => [`RATELIMIT_${b}_PER_MIN`, LIFTED]),
  );
  platform = await startPlatform({
    env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'debug', ...budgets },
    seedProducts: 300,
    credentialsPath: null,
    logDestination: new Writable({ write: (c, _e, cb) => (logLines.push(String(c)), cb()) }),
  });
  const c = platform.credentials!;
  const [p0, p1] = c.publishers;
  const rows: Array<[string | undefined, string | undefined]> = [
    [undefined, undefined],
    [p0.keys.live, p0.account_id],
    [p0.keys.demo, p0.account_id],
    [p0.keys.read_only, p0.account_id],
    [p0.keys.revoked, p0.account_id],
    [p1.keys.live, p1.account_id],
    [p0.reporting_token, p0.account_id],
    [p0.offers_credential, p0.account_id],
    [p0.portal_token, p0.account_id],
    [c.fixtures.merchant_token, undefined],
    [c.special_keys.inactive_account, undefined],
    [`live_${'A'.repeat(43)}`, undefined],
    [SESSION, p0.account_id],
  ];
  // Apps' access tokens of publishers[0]'s owner, one per scope, and one for the MCP resource (refused here).
  const db = await connectDatabase(platform.mongoUri);
  try {
    const deps = { data: openPlatformData(db.connection).data, config: platform.config };
    const person = String((await db.connection.collection('users').findOne({ email: p0.portal_login.email }))!._id);
    for (const [scopes, resource] of [
      ['affiliate:read', 'publisherApi'],
      ['catalog:read', 'publisherApi'],
      ['links:write', 'publisherApi'],
      ['reports:read', 'publisherApi'],
      ['postbacks:read', 'publisherApi'],
      ['affiliate:read catalog:read links:write reports:read postbacks:read', 'publisherApi'],
      ['catalog:read', 'mcp'],
    ] as const) {
      const grantId = await storeGrant(deps, { personId: person, accountId: p0.account_id, scopes, resource });
      rows.push([await accessToken(deps, { personId: person, accountId: p0.account_id, grantId, scopes, resource, expiresIn: '1h' }), p0.account_id]);
    }
  } finally {
    await db.close();
  }
  await signIn();
  credentials = rows.map(([k]) => k);
  accountOf = rows.map(([, a]) => a);
  accounts = c.publishers.map((p) => p.account_id);
  secrets = c.publishers
    .flatMap((p) => [...Object.values(p.keys), p.reporting_token, p.offers_credential, p.portal_token, p.portal_login.password])
    .concat(c.fixtures.merchant_token, ...Object.values(c.special_keys))
    .concat(rows.map(([k]) => k).filter((k): k is string => !!k && k.split('.').length === 3));
  const docs: OpenApiDocument[] = [];
  for (const path of DOCS) {
    const res = await fetch(`${platform.url}${path}`);
    expect(res.status, path).toBe(200);
    docs.push((await res.json()) as OpenApiDocument);
  }
  ops = operationsOf(docs);
}, 120_000);
afterAll(async () => platform?.stop());

/** Signs publishers[0]'s owner in (again, once a fuzzed request signed the session out or ended it). */
async function signIn(): Promise<void> {
  const signin = await fetch(`${platform.url}/portal/api/signin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: platform.url },
    body: JSON.stringify(platform.credentials!.publishers[0].portal_login),
  });
  expect(signin.status).toBe(200);
  session = { cookie: signin.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await signin.json()) as { csrf_token: string }).csrf_token };
}

/** The credential an operation's security scheme asks for (index into `credentials`). */
function fitting(op: { security: string[] }): number {
  const scheme = op.security[0];
  return scheme === 'PortalSession'
    ? credentials.indexOf(SESSION)
    : scheme === 'ReportingToken'
      ? 6
      : scheme === 'OffersCredential'
        ? 7
        : scheme === 'MerchantToken'
          ? 9
          : scheme
            ? op.security.includes('ApiKeyHeader')
              ? 1
              : 8
            : 0;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(c: FuzzCase): Promise<Answer> {
  // Browsers send their Origin with every unsafe request: the portal checks it (the APIs ignore it).
  const headers: Record<string, string> = { Origin: platform.url };
  const secret = credentials[c.credential];
  if (secret === SESSION) Object.assign(headers, { Cookie: session.cookie, 'X-CSRF-Token': session.csrf });
  else if (secret) headers[c.scheme === 'x-api-key' ? 'X-API-Key' : 'Authorization'] = c.scheme === 'x-api-key' ? secret : `Bearer ${secret}`;
  if (c.contentType) headers['Content-Type'] = c.contentType;
  const controller = new AbortController();
  const res = await fetch(`${platform.url}${c.url}`, { method: c.method, headers, body: c.body, redirect: 'manual', signal: controller.signal });
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    // An event stream never ends by itself: its first chunk is the answer to check, then hang up.
    const reader = res.body!.getReader();
    const first = await reader.read();
    controller.abort();
    return { status: res.status, headers: res.headers, text: new TextDecoder().decode(first.value) };
  }
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * The operation a request meets: its own, or another method's on the same path; none (405) but on
 * an envelope API, which answers any method as its documented operation would.
 */
function operationMet(c: FuzzCase): FuzzOperation | undefined {
  if (c.method === c.operation.method || c.operation.statusInEnvelope) return c.operation;
  return ops.find((o) => o.path === c.operation.path && o.method === c.method);
}

/** Whether the answer is one its OpenAPI document promises: status, media type, body schema. */
function offDocument(c: FuzzCase, a: Answer): string | undefined {
  // OPTIONS asks which methods a path takes (HTTP's own answer: the Allow header), not an operation.
  if (c.method === 'OPTIONS' && a.status === 200 && a.headers.get('allow')) return undefined;
  const op = operationMet(c);
  if (!op)
    return a.status === 405 || a.status === 414 || a.status === 431
      ? undefined
      : `${c.method} is no operation of ${c.operation.path}, yet answered ${a.status}`;
  const declared = op.responses[String(a.status)];
  if (!declared) return `status ${a.status} is not declared for ${op.method} ${op.path} (declared: ${Object.keys(op.responses).join(', ')})`;
  const types = Object.keys(declared);
  if (!types.length) return undefined;
  const type = (a.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!types.includes(type)) return `content type ${type || 'none'} is not declared for ${a.status} (declared: ${types.join(', ')})`;
  const schema = declared[type];
  if (!schema || !(type === 'application/json' || type.endsWith('+json'))) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    return `${type} answer is not JSON: ${a.text.slice(0, 100)}`;
  }
  const errors = schemaErrors(schema, body);
  return errors && `body does not match the ${a.status} schema: ${errors}`;
}

/**
 * The answer without the one secret it may carry by design: the one a 201 has just issued and
 * shows once (an instant-monetization application's access_secret, a new postback secret).
 * Any secret that existed before (the fixtures' keys) is still caught by value.
 */
function withoutIssuedSecret(a: Answer): string {
  if (a.status !== 201) return a.text;
  try {
    const body = JSON.parse(a.text) as Record<string, unknown>;
    delete body.access_secret;
    delete body.secret;
    return JSON.stringify(body);
  } catch {
    return a.text;
  }
}

/** What every answer must satisfy; returns the first broken promise, or undefined. */
function broken(c: FuzzCase, a: Answer): string | undefined {
  if (a.status >= 500) return `status ${a.status}: ${a.text.slice(0, 300)}`;
  const off = offDocument(c, a);
  if (off) return off;
  const id = a.headers.get('x-request-id');
  if (!id) return 'no X-Request-Id';
  // Refusals of the HTTP parser itself (headers over 16 KiB, slow or malformed requests) come
  // before any request reaches an app: nothing was counted, so they carry no RateLimit headers.
  const transport = a.status === 431 || a.status === 408 || (a.status === 400 && a.text.includes('"malformed_request"'));
  if (!transport) for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) if (!a.headers.get(h)) return `no ${h}`;
  if (a.status >= 400) {
    let body: { code?: unknown; detail?: unknown; request_id?: unknown };
    try {
      body = JSON.parse(a.text) as typeof body;
    } catch {
      return `error ${a.status} is not JSON: ${a.text.slice(0, 100)}`;
    }
    if (typeof body.code !== 'string' || typeof body.detail !== 'string' || body.request_id !== id)
      return `error ${a.status} not in the error shape: ${a.text.slice(0, 200)}`;
  }
  const leaked = secrets.find((s) => a.text.includes(s)) ?? SECRET_SHAPE.exec(withoutIssuedSecret(a))?.[0];
  if (leaked) return `answer carries a secret (${leaked.slice(0, 8)}…)`;
  const caller = accountOf[c.credential];
  const other = caller && accounts.find((acct) => acct !== caller && a.text.includes(acct));
  if (other) return `answer to ${caller} names ${other}`;
  return undefined;
}

describe('fuzzing every route from the served OpenAPI documents', () => {
  it(`finds no 5xx, no shapeless error, no missing header and no leak in ${RUNS} requests`, async () => {
    expect(ops.length).toBeGreaterThan(25);
    await fc.assert(
      fc.asyncProperty(anyCase(ops, credentials.length, fitting), async (c) => {
        const a = await send(c);
        if (credentials[c.credential] === SESSION && (a.status === 401 || c.url.includes('/signout') || c.url.includes('/password/'))) await signIn();
        const problem = broken(c, a);
        if (problem)
          throw new Error(
            `${c.method} ${c.url.slice(0, 200)} (credential ${c.credential}): ${problem} [status ${a.status}, headers ${[...a.headers.keys()].join(' ')}, body ${a.text.slice(0, 200)}]`,
          );
      }),
      { numRuns: RUNS },
    );
    // Nor did any log line of the whole run carry one (keys, tokens, postback and access secrets).
    expect(logLines.length).toBeGreaterThan(0);
    const logged = logLines.filter((l) => secrets.some((s) => l.includes(s)) || SECRET_SHAPE.test(l));
    expect(logged.map((l) => l.slice(0, 200))).toEqual([]);
  }, 290_000);

  it('answers random requests to the OAuth endpoints in OAuth’s own terms, never a 5xx', async () => {
    const endpoint = fc.constantFrom(
      '/oauth/token',
      '/oauth/register',
      '/oauth/revoke',
      '/oauth/authorize',
      '/oauth/jwks',
      '/oauth/userinfo',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource/api/v1/mcp',
      '/oauth/interaction/nope/details',
    );
    const form = fc.dictionary(
      fc.constantFrom(
        'grant_type',
        'code',
        'code_verifier',
        'client_id',
        'redirect_uri',
        'refresh_token',
        'token',
        'resource',
        'scope',
        'response_type',
        'code_challenge',
        'code_challenge_method',
        'state',
      ),
      fc.oneof(
        fc.string(),
        fc.constantFrom('authorization_code', 'refresh_token', 'S256', 'plain', 'code', 'http://127.0.0.1:1/cb', `${platform.url}/api/v1/mcp`),
      ),
    );
    await fc.assert(
      fc.asyncProperty(endpoint, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), form, fc.boolean(), async (path, method, params, json) => {
        const query = new URLSearchParams(params).toString();
        const body = method === 'GET' ? undefined : json ? JSON.stringify({ ...params, redirect_uris: [params.redirect_uri ?? 'x'] }) : query;
        const res = await fetch(`${platform.url}${path}${method === 'GET' && query ? `?${query}` : ''}`, {
          method,
          redirect: 'manual',
          headers: { Origin: platform.url, ...(body ? { 'Content-Type': json ? 'application/json' : 'application/x-www-form-urlencoded' } : {}) },
          body,
        });
        const text = await res.text();
        if (res.status >= 500) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
        if (secrets.some((s) => text.includes(s))) throw new Error(`${method} ${path} answered a secret`);
      }),
      { numRuns: 400 },
    );
  }, 120_000);

  it('answers malformed, random and hostile JSON-RPC on the MCP endpoint with JSON-RPC, never a 5xx', async () => {
    const live = platform.credentials!.publishers[0].keys.live;
    const message = fc.oneof(
      fc.json(),
      fc.record({
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method: fc.oneof(fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping', 'resources/list'), fc.string()),
        params: fc.anything(),
      }),
      fc.record({
        jsonrpc: fc.constant('2.0'),
        id: fc.integer(),
        method: fc.constant('tools/call'),
        params: fc.record({
          name: fc.constantFrom('search_products', 'create_tracking_link', 'get_report', 'nope'),
          arguments: fc.oneof(fc.dictionary(fc.string(), fc.anything()), fc.anything()),
        }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(message, fc.boolean(), async (m, withKey) => {
        const res = await fetch(`${platform.url}/api/v1/mcp/`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(withKey ? { 'X-API-Key': live } : {}) },
          body: typeof m === 'string' ? m : JSON.stringify(m),
        });
        const text = await res.text();
        if (res.status >= 500) throw new Error(`MCP ${res.status}: ${text.slice(0, 300)}`);
        if (text && res.headers.get('content-type')?.includes('application/json')) {
          const body = JSON.parse(text) as { jsonrpc?: string } | Array<{ jsonrpc?: string }>;
          const first = Array.isArray(body) ? body[0] : body;
          if (first && first.jsonrpc !== '2.0') throw new Error(`MCP answer is not JSON-RPC: ${text.slice(0, 200)}`);
        }
      }),
      { numRuns: 500 },
    );
  }, 120_000);
});
