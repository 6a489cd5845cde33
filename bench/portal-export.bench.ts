/**
 * The portal's CSV export of conversions (issues 43 and 67): one account with N conversions
 * (default 100,000) over a year, exported through `GET /portal/api/accounts/:account/conversions/export`
 * with the owner's session, as the page's "Download CSV" does. The platform runs in its own process
 * (as deployed: no raised heap limit, the images' malloc settings), the engine in another, the
 * client here. Measures rows per second and the platform process's peak RSS growth while streaming
 * (VmRSS sampled every 50 ms against its RSS after a GC before it; target ≤ 50 MiB at any N), its
 * heap's peak growth and what the heap retains after a GC. Then the same with a filter
 * (status=approved), and the first page of the list for comparison.
 * `npm run bench:portal-export [-- --conversions N --runs 2]`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { startPlatform } from '@cw-tools/dev-stack';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';
import { MALLOC_ENV } from './lib/malloc-env';
import { seedConversions } from './support/seed-conversions';

const OPTIONS = {
  conversions: { type: 'string', default: '100000' },
  runs: { type: 'string', default: '2' },
  /** The platform process's V8 GC trace on stderr (how the bench found where the memory went). */
  'trace-gc': { type: 'boolean', default: false },
  /** Internal: run the platform on this engine URI and answer the parent on stdout. */
  serve: { type: 'string' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:portal-export --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const N = Number(values.conversions);
const RUNS = Number(values.runs);
const LIFTED = '10000000';

/** Memory as the platform's process reports it on SIGUSR2: its heap's peak since the last report, then after a GC. */
interface Report {
  rss: number;
  heapPeak: number;
  heapAfterGc: number;
}

if (values.serve) {
  // The platform's own process (as deployed: no raised heap limit; the images' malloc settings).
  const platform = await startPlatform({
    env: {
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      MONGODB_URI: values.serve,
      RATELIMIT_PORTAL_PER_MIN: LIFTED,
      RATELIMIT_IP_PER_MIN: LIFTED,
      RATELIMIT_SIGNIN_ADDRESS_PER_MIN: LIFTED,
      RATELIMIT_SIGNIN_EMAIL_PER_MIN: LIFTED,
    },
    seedProducts: 500,
    credentialsPath: null,
  });
  let heapPeak = process.memoryUsage().heapUsed;
  setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 50).unref();
  process.on('SIGUSR2', () => {
    const peak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    global.gc?.();
    const m = process.memoryUsage();
    heapPeak = m.heapUsed;
    process.stdout.write(`${JSON.stringify({ rss: m.rss, heapPeak: peak, heapAfterGc: m.heapUsed } satisfies Report)}\n`);
  });
  process.on('SIGTERM', () => void platform.stop().then(() => process.exit(0)));
  process.stdout.write(`${JSON.stringify({ url: platform.url, pub: platform.credentials!.publishers[0]! })}\n`);
} else {
  await measure();
}

async function measure(): Promise<void> {
  const engine = await startEngineProcess('bench_portal_export');
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...(values['trace-gc'] ? ['--trace-gc'] : []), '--import', 'tsx', 'bench/portal-export.bench.ts', '--serve', engine.uri],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...MALLOC_ENV, ...process.env },
    },
  );
  process.on('exit', () => child.kill());
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  // Our answers are JSON lines; anything else on the platform's stdout (its GC trace) goes to stderr.
  const nextLine = async (): Promise<unknown> => {
    for (;;) {
      const r = await lines.next();
      if (r.done) throw new Error('the platform process ended');
      const line = r.value as string;
      if (line.startsWith('{')) return JSON.parse(line);
      process.stderr.write(`${line}\n`);
    }
  };
  const { url, pub } = (await nextLine()) as { url: string; pub: { account_id: string; portal_login: unknown } };
  /** The platform process's heap peak since the last call, then a GC there: its heap and RSS after. */
  const report = async (): Promise<Report> => {
    child.kill('SIGUSR2');
    return (await nextLine()) as Report;
  };
  /** Its resident set now (from /proc, as `ps` shows it). */
  const rssOf = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;

  await seedConversions(engine.uri, pub.account_id, N);
  const signin = await fetch(`${url}/portal/api/signin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: url },
    body: JSON.stringify(pub.portal_login),
  });
  if (signin.status !== 200) throw new Error(`sign-in: ${signin.status} ${await signin.text()}`);
  const cookie = signin.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
  const base = `${url}/portal/api/accounts/${pub.account_id}/conversions`;

  async function exportOnce(
    query: string,
  ): Promise<{ rows: number; bytes: number; secs: number; growth: number; rss0: number; heapGrowth: number; retained: number }> {
    const before = await report();
    const rss0 = rssOf();
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf())), 50);
    const t = performance.now();
    const res = await fetch(`${base}/export${query}`, { headers: { Cookie: cookie } });
    if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
    let lines = 0;
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
    const secs = (performance.now() - t) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssOf());
    // What the export left behind once collected (none: the growth was garbage, not held rows).
    const after = await report();
    return {
      rows: lines - 1,
      bytes,
      secs,
      growth: peak - rss0,
      rss0,
      heapGrowth: after.heapPeak - before.heapAfterGc,
      retained: after.heapAfterGc - before.heapAfterGc,
    };
  }

  for (const [label, query] of [
    ['every conversion', ''],
    ['status=approved', '?status=approved'],
  ] as const) {
    for (let i = 0; i < RUNS; i++) {
      const r = await exportOnce(query);
      console.log(
        `portal CSV export (${label}), run ${i + 1}: ${r.rows.toLocaleString('en-US')} rows, ${mib(r.bytes)} in ${r.secs.toFixed(1)} s = ${Math.round(r.rows / r.secs).toLocaleString('en-US')} rows/s; RSS ${mib(r.rss0)} before, peak growth +${mib(r.growth)}${r.growth > 50 * 1048576 ? ' (over the 50 MB target)' : ''}; heap peak growth +${mib(r.heapGrowth)}, retained after GC ${mib(r.retained)}`,
      );
    }
  }

  const t = performance.now();
  const first = await fetch(`${base}?page_size=500`, { headers: { Cookie: cookie } });
  if (first.status !== 200) throw new Error(`list: ${first.status}`);
  await first.json();
  console.log(`the list's first page of 500 (with its sub-ID rollup over all ${N.toLocaleString('en-US')}): ${(performance.now() - t).toFixed(0)} ms`);

  child.kill('SIGTERM');
  await once(child, 'exit');
  await engine.stop();
}
