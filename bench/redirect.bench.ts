/**
 * Click redirect throughput and latency: the one-process platform's GET /c/{code} next to a bare
 * Node http server answering a fixed 302, in the same run; then p99 at a fixed request rate; then
 * clicks stored == redirects answered. `npm run bench:redirect [-- --duration 10 --rate 1000]`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Koa from 'koa';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { startPlatform } from '@cw-tools/dev-stack';
import { formatResult, runLoad } from './lib/run-load';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' }, rate: { type: 'string', default: '1000' } } });
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const RATE = Number(values.rate);

const mongo = await startEmbeddedMongo();
const uri = `${mongo.uri}/bench_redirect`;
const platform = await startPlatform({ env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', MONGODB_URI: uri, RATELIMIT_LINKS_PER_MIN: '1000', RATELIMIT_IP_PER_MIN: '10000000' }, seedProducts: 500, credentialsPath: null });
const creds = platform.credentials!;
const created = await fetch(`${platform.url}/api/v1/publisher/links/`, {
  method: 'POST',
  headers: { 'X-API-Key': creds.publishers[0].keys.live, 'Content-Type': 'application/json' },
  body: JSON.stringify({ program_id: creds.fixtures.approved_program_id, subid: 'bench' }),
});
const link = (await created.json()) as { id: string };
const path = `/c/${link.id}`;
const first = await fetch(`${platform.url}${path}`, { redirect: 'manual' });
const location = first.headers.get('location')!;

const bare = http.createServer((_req, res) => {
  res.writeHead(302, { Location: location, 'Cache-Control': 'no-store' });
  res.end();
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', () => r()));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

// For context: Koa alone answering the same fixed 302 (the framework's own cost).
const bareKoa = new Koa();
bareKoa.use((ctx) => {
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(location);
});
const koaServer = http.createServer(bareKoa.callback());
await new Promise<void>((r) => koaServer.listen(0, '127.0.0.1', () => r()));
const koaUrl = `http://127.0.0.1:${(koaServer.address() as AddressInfo).port}`;

const headers = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' };
const load = (url: string, overallRate?: number) => runLoad({ url, requests: [{ path, headers }], connections: CONNECTIONS, durationSeconds: DURATION, overallRate });

console.log(`\n${CONNECTIONS} connections, ${DURATION} s per run\n`);
const bareResult = await load(bareUrl);
console.log(formatResult('bare node:http fixed 302', bareResult));
const koaResult = await load(koaUrl);
console.log(formatResult('bare Koa fixed 302 (context)', koaResult));
const max = await load(platform.url);
console.log(formatResult('GET /c/{code} (platform)', max));
const fixed = await load(platform.url, RATE);
console.log(formatResult(`GET /c/{code} at ${RATE} req/s`, fixed));
console.log(`\nredirect ${((100 * max.requestsPerSecond) / bareResult.requestsPerSecond).toFixed(1)}% of the bare server (goal >= 70%); bare Koa ${((100 * koaResult.requestsPerSecond) / bareResult.requestsPerSecond).toFixed(1)}%`);
console.log(`platform process RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);

// Redirects the server answered (autocannon does not count requests in flight when it stops).
await new Promise((r) => setTimeout(r, 500));
const metrics = await (await fetch(`${platform.url}/metrics`)).text();
const redirects = metrics
  .split('\n')
  .filter((l) => l.startsWith('http_requests_total{') && l.includes('service="tracker"') && l.includes('status="302"'))
  .reduce((a, l) => a + Number(l.split(' ').pop()), 0);
bare.close();
koaServer.close();
await platform.stop(); // closes the tracker's click buffer: every click written
const client = await MongoClient.connect(uri);
const stored = await client.db().collection('clicks').countDocuments({ link_id: link.id });
await client.close();
await mongo.stop();
console.log(`clicks stored ${stored} of ${redirects} redirects answered${stored === redirects ? '' : '  <-- MISMATCH'}`);
process.exit(stored === redirects ? 0 : 1);
