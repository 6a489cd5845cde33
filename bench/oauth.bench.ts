/**
 * OAuth access tokens on the resource servers (issue 44), on the one-process platform:
 *   1. The cost of a token on the search path: req/s of the same cached search page with the API
 *      key and with an access token of the same account, alternated A B A B in one run (target:
 *      within 5%).
 *   2. Revocation to refusal: a token used (and so cached), its grant revoked as the portal does,
 *      then the very next request: its status and the time from the revocation's return to it.
 * `npm run bench:oauth [-- --seconds 5 --rounds 2 --connections 16]`
 */
import { performance } from 'node:perf_hooks';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { accessToken, storeGrant } from '@cw-tools/testing';
import { connectDatabase } from '@cw/db';
import { openPlatformData } from '@cw/runtime';
import { formatResult, runLoad } from './lib/run-load';

const OPTIONS = {
  seconds: { type: 'string', default: '5' },
  rounds: { type: 'string', default: '2' },
  connections: { type: 'string', default: '16' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:oauth --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const LIFTED = '10000000';
const platform = await startPlatform({
  env: {
    PORT: '0',
    NODE_ENV: 'production',
    SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    LOG_LEVEL: 'silent',
    RATELIMIT_IP_PER_MIN: LIFTED,
    RATELIMIT_PRODUCTS_PER_MIN: LIFTED,
    RATELIMIT_ACCOUNT_PER_MIN: LIFTED,
  },
  seedProducts: 20_000,
  credentialsPath: null,
});
const db = await connectDatabase(platform.mongoUri);
try {
  const { data } = openPlatformData(db.connection);
  const creds = platform.credentials!;
  const account = creds.publishers[0]!.account_id;
  const person = (await db.connection.collection('users').findOne({ email: creds.publishers[0]!.portal_login.email }))!._id as unknown as string;
  const deps = { data, config: platform.config };
  const grantId = await storeGrant(deps, { personId: person, accountId: account, scopes: 'catalog:read affiliate:read' });
  const token = await accessToken(deps, { personId: person, accountId: account, grantId, scopes: 'catalog:read affiliate:read', expiresIn: '1h' });
  const path = `/api/v1/publisher/products/?q=${encodeURIComponent(creds.fixtures.group_query)}&country=DE&limit=10`;
  const key = { 'X-API-Key': creds.publishers[0]!.keys.live };
  const bearer = { Authorization: `Bearer ${token}` };
  for (const headers of [key, bearer]) {
    const r = await fetch(`${platform.url}${path}`, { headers });
    if (r.status !== 200) throw new Error(`search answered ${r.status}: ${await r.text()}`);
  }
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const rates: Record<'key' | 'token', number[]> = { key: [], token: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [name, headers] of [
      ['key', key],
      ['token', bearer],
    ] as const) {
      const r = await runLoad({ url: platform.url, requests: [{ path, headers }], connections, durationSeconds: seconds });
      if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      rates[name].push(r.requestsPerSecond);
      console.log(formatResult(`search, ${name} (round ${round + 1})`, r));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(rates.token) / median(rates.key);
  console.log(`token / key req/s: ${(ratio * 100).toFixed(1)}% (medians ${median(rates.token).toFixed(0)} / ${median(rates.key).toFixed(0)})`);

  // 2. Revocation to refusal.
  const me = () => fetch(`${platform.url}/api/v1/publisher/me/`, { headers: bearer });
  if ((await me()).status !== 200) throw new Error('the token did not work before revocation');
  await data.oauth.revokeGrant(grantId, account);
  const t = performance.now();
  const after = await me();
  console.log(`revoked, then the next request: ${after.status} after ${(performance.now() - t).toFixed(1)} ms`);
} finally {
  await db.close();
  await platform.stop();
}
