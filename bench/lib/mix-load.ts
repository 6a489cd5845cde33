/**
 * An open-loop load of a realistic mix at a fixed rate, in its own process:
 * `tsx bench/lib/mix-load.ts '<json MixSpec>'` prints one JSON MixResult line. Each tick sends
 * its share of requests whatever the answers' latency (no coordinated omission); a sale follows a
 * real redirect (its click id) with an order id of its own.
 */
import { performance } from 'node:perf_hooks';
import { Agent, setGlobalDispatcher } from 'undici';

export interface MixSpec {
  url: string;
  apiKey: string;
  merchantToken: string;
  linkCode: string;
  programId: number;
  gtins: string[];
  rate: number;
  seconds: number;
  /** Relative weights per route. */
  weights: Record<Route, number>;
}

export type Route = 'search' | 'lookup' | 'redirect' | 'link' | 'report' | 'sale';

export interface MixResult {
  sent: number;
  perRoute: Record<string, { count: number; errors: number; p50: number; p99: number; statuses: Record<string, number> }>;
  redirectsAnswered: number;
  salesCreated: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as MixSpec;
setGlobalDispatcher(new Agent({ connections: 64, pipelining: 1 }));
const latencies = new Map<Route, number[]>();
const statuses = new Map<Route, Record<string, number>>();
let redirectsAnswered = 0;
let salesCreated = 0;
let orders = 0;

function note(route: Route, ms: number, status: number | string): void {
  (latencies.get(route) ?? latencies.set(route, []).get(route)!).push(ms);
  const s = statuses.get(route) ?? statuses.set(route, {}).get(route)!;
  s[status] = (s[status] ?? 0) + 1;
}

async function timed(route: Route, run: () => Promise<Response>): Promise<Response | undefined> {
  const t = performance.now();
  try {
    const res = await run();
    await res.arrayBuffer().catch(() => undefined);
    note(route, performance.now() - t, res.status);
    return res;
  } catch (e) {
    note(route, performance.now() - t, (e as Error).name);
    return undefined;
  }
}

const key = { 'X-API-Key': spec.apiKey };
/** Click ids of answered redirects, with when; a merchant reports a sale a while after its click. */
const clicks: Array<[string, number]> = [];
let readers = 0;
/** Many readers behind the platform's trusted proxy: one address each, as real traffic has. */
const reader = () => ({
  'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
  'X-Forwarded-For': `10.${(readers >> 16) & 255}.${(readers >> 8) & 255}.${readers++ & 255}`,
});
const B = `${spec.url}/api/v1/publisher`;
const actions: Record<Route, () => Promise<void>> = {
  search: async () => void (await timed('search', () => fetch(`${B}/products/?country=DE&offset=${20 * (orders % 5)}`, { headers: key }))),
  lookup: async () => void (await timed('lookup', () => fetch(`${B}/products/lookup/?gtins=${spec.gtins.slice(0, 10).join(',')}`, { headers: key }))),
  redirect: async () => {
    const res = await timed('redirect', () => fetch(`${spec.url}/c/${spec.linkCode}`, { redirect: 'manual', headers: reader() }));
    if (res?.status !== 302) return;
    redirectsAnswered++;
    const clickId = [...new URL(res.headers.get('location')!).searchParams.values()].find((v) => v.startsWith('clk_'));
    if (clickId) clicks.push([clickId, performance.now()]);
  },
  link: async () =>
    void (await timed('link', () =>
      fetch(`${B}/links/`, {
        method: 'POST',
        headers: { ...key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ program_id: spec.programId, subid: `soak-${orders++ % 500}` }),
      }),
    )),
  report: async () => void (await timed('report', () => fetch(`${B}/reports/?group_by=day`, { headers: key }))),
  sale: async () => {
    // A click at least 2 s old (written by then), each sold once.
    if (!clicks.length || performance.now() - clicks[0][1] < 2000) return actions.redirect();
    const [clickId] = clicks.shift()!;
    const res = await timed('sale', () =>
      fetch(`${spec.url}/api/v1/track/conversions/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${spec.merchantToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ click_id: clickId, order_id: `SOAK-${process.pid}-${orders++}`, amount: '49.90', currency: 'EUR' }),
      }),
    );
    if (res?.status === 201) salesCreated++;
  },
};

const routes = Object.keys(spec.weights) as Route[];
const total = routes.reduce((a, r) => a + spec.weights[r], 0);
const pick = (x: number): Route => {
  let acc = 0;
  for (const r of routes) if (x < (acc += spec.weights[r] / total)) return r;
  return routes[routes.length - 1];
};

const TICK_MS = 10;
const pending = new Set<Promise<void>>();
let sent = 0;
let owed = 0;
const start = performance.now();
while (performance.now() - start < spec.seconds * 1000) {
  owed += (spec.rate * TICK_MS) / 1000;
  for (; owed >= 1; owed--) {
    const p = actions[pick(Math.random())]().finally(() => pending.delete(p));
    pending.add(p);
    sent++;
  }
  await new Promise((r) => setTimeout(r, TICK_MS));
}
await Promise.all(pending);

const q = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] : 0);
const result: MixResult = {
  sent,
  perRoute: Object.fromEntries(
    routes.map((r) => {
      const s = statuses.get(r) ?? {};
      const errors = Object.entries(s)
        .filter(([k]) => !/^[23]\d\d$/.test(k))
        .reduce((a, [, v]) => a + v, 0);
      return [r, { count: latencies.get(r)?.length ?? 0, errors, p50: q(latencies.get(r) ?? [], 0.5), p99: q(latencies.get(r) ?? [], 0.99), statuses: s }];
    }),
  ),
  redirectsAnswered,
  salesCreated,
};
console.log(JSON.stringify(result));
