/**
 * Whether sign-up and forgot-password tell a taken address by their time (the accounts probe):
 * the one-process platform with the demo data in this process, driven through HTTP one request at
 * a time by a client in a process of its own (so the client's clock does not share the server's
 * event loop, where each answer's mail is composed and written after it),
 *   - `POST /portal/api/signup` with a taken address (the demo owner's, confirmed) and with a new
 *     one each time,
 *   - `POST /portal/api/password/forgot` with a known address and with an unknown one,
 * interleaved (the four kinds take turns, the order turning each round, so drift and the
 * background mail of one request land on every kind alike); p50/p95 per kind and the p50 ratios.
 * Target: the p50s of each pair within 10% of each other.
 * `npm run bench:signup [-- --requests 300 --warmup 20]`
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const KIND_NAMES = ['sign-up, taken address', 'sign-up, new address', 'forgot-password, known address', 'forgot-password, unknown address'] as const;
type Kind = (typeof KIND_NAMES)[number];

/** The client: SIGNUP_BENCH = {url, taken, requests, warmup}; prints one JSON line of the times per kind. */
async function client(spec: { url: string; taken: string; requests: number; warmup: number }): Promise<void> {
  const run = randomBytes(4).toString('hex');
  let n = 0;
  const fresh = (who: string) => `${who}.${run}.${++n}@signup-bench.example`;
  // A password the portal takes (long, not common, none of the address or names in it).
  const password = () => `tq ${randomBytes(9).toString('base64url')} vu`;
  async function post(path: string, body: object): Promise<number> {
    const t = performance.now();
    const r = await fetch(`${spec.url}/portal/api${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: spec.url },
      body: JSON.stringify(body),
    });
    await r.arrayBuffer();
    const took = performance.now() - t;
    if (r.status !== 202) throw new Error(`${path} answered ${r.status}`);
    return took;
  }
  const send: Record<Kind, () => Promise<number>> = {
    'sign-up, taken address': () => post('/signup', { email: spec.taken, password: password(), account_name: 'Bench Media' }),
    'sign-up, new address': () => post('/signup', { email: fresh('new'), password: password(), account_name: 'Bench Media' }),
    'forgot-password, known address': () => post('/password/forgot', { email: spec.taken }),
    'forgot-password, unknown address': () => post('/password/forgot', { email: fresh('nobody') }),
  };
  const took = Object.fromEntries(KIND_NAMES.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
  for (let i = 0; i < spec.warmup + spec.requests; i++) {
    // The order turns each round: no kind always follows another.
    for (let j = 0; j < KIND_NAMES.length; j++) {
      const kind = KIND_NAMES[(i + j) % KIND_NAMES.length]!;
      const t = await send[kind]();
      if (i >= spec.warmup) took[kind].push(t);
    }
  }
  process.stdout.write(`${JSON.stringify(took)}\n`);
}

if (process.env.SIGNUP_BENCH) {
  await client(JSON.parse(process.env.SIGNUP_BENCH) as Parameters<typeof client>[0]);
  process.exit(0);
}

const OPTIONS = {
  requests: { type: 'string', default: '300' },
  warmup: { type: 'string', default: '20' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:signup --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

// The mail is written to files, as on the local platform (in the background, after each answer).
const mailDir = mkdtempSync(join(tmpdir(), 'signup-bench-mail-'));
const platform = await startPlatform({
  env: {
    PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATELIMIT_PORTAL_PER_MIN: '10000000',
    RATELIMIT_IP_PER_MIN: '10000000',
    RATELIMIT_SIGNIN_ADDRESS_PER_MIN: '10000000',
    RATELIMIT_SIGNIN_EMAIL_PER_MIN: '10000000',
  },
  seedProducts: 200,
  credentialsPath: null,
  mailDir,
});
const taken = platform.credentials!.publishers[0]!.portal_login.email;

/** Runs the client in its own process; answers its times per kind. */
function runClient(): Promise<Record<Kind, number[]>> {
  const spec = { url: platform.url, taken, requests: REQUESTS, warmup: WARMUP };
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, SIGNUP_BENCH: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Record<Kind, number[]>) : reject(new Error(`client exited ${code}`)),
    ),
  );
}

try {
  const took = await runClient();
  console.log(`${REQUESTS} requests of each kind, interleaved, one at a time, the client in its own process (after ${WARMUP} rounds of warm-up):`);
  for (const k of KIND_NAMES) console.log(`  ${k.padEnd(34)} p50 ${ms(pct(took[k], 50))}  p95 ${ms(pct(took[k], 95))}`);
  const ratio = (a: Kind, b: Kind) => pct(took[a], 50) / pct(took[b], 50);
  for (const [a, b] of [
    ['sign-up, taken address', 'sign-up, new address'],
    ['forgot-password, known address', 'forgot-password, unknown address'],
  ] as const) {
    const r = ratio(a, b);
    console.log(`  p50 ${a} / ${b}: ${r.toFixed(3)} (${Math.abs(r - 1) <= 0.1 ? 'within' : 'NOT within'} 10%)`);
  }
} finally {
  await platform.stop();
  rmSync(mailDir, { recursive: true, force: true });
}
