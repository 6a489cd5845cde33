/**
 * Missing-sale inquiry evidence lookup (docs/decisions/0059-missing-sale-inquiries.md) at
 * 3,000,000 clicks on the account against 10,000 (issue 64: within 2x).
 *
 * Two accounts on one engine (its own process, as MongoDB would be), each with its clicks spread
 * evenly over `--days` (90) on 10 programs of 10 merchants (200 links), stored as the tracker
 * stores them (`insertClickRows`, batches of 1,000, signed click ids). Then `gatherEvidence` (what
 * `POST /inquiries/` runs: the publisher's clicks on the program in its 30-day cookie window
 * before the order, newest 20, each id's signature verified) for `--lookups` orders at random
 * times of the last 60 days, sequentially, per account: p50/p99 and the clicks found.
 *
 * `npm run bench:inquiries [-- --small 10000 --large 3000000 --lookups 200 --days 90]`
 */
import { performance } from 'node:perf_hooks';
import { keyRing } from '@cw/config';
import { connectDatabase, migrateIndexes } from '@cw/db';
import { gatherEvidence } from '@cw/inquiries';
import { ClickIds, type ClickRow } from '@cw/links';
import { openPlatformData } from '@cw/runtime';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { startEngineProcess } from './lib/engine-process';

const OPTIONS = {
  small: { type: 'string', default: '10000' },
  large: { type: 'string', default: '3000000' },
  lookups: { type: 'string', default: '200' },
  days: { type: 'string', default: '90' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:inquiries --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const DAY = 86_400_000;
const PROGRAMS = 10;
const LINKS = 200;
const BATCH = 1000;
const keys = keyRing(Buffer.from('bench-inquiries-secret-key-0123456789abcdef'));
const engine = await startEngineProcess('bench_inquiries');
const db = await connectDatabase(engine.uri);
const { models, data } = openPlatformData(db.connection);
await migrateIndexes(models);
const ids = new ClickIds(keys);
const now = Date.now();

async function seed(publisherId: string, clicks: number): Promise<number> {
  const t0 = performance.now();
  const span = Number(values.days) * DAY;
  for (let done = 0; done < clicks; done += BATCH) {
    const rows: ClickRow[] = [];
    for (let i = done; i < Math.min(clicks, done + BATCH); i++) {
      const at = new Date(now - span + Math.floor((i / clicks) * span));
      const link = i % LINKS;
      const program = link % PROGRAMS;
      const linkId = `${publisherId.slice(-4)}L${link}`;
      rows.push({
        _id: ids.next(linkId, { isBot: false }, at.getTime()),
        link_id: linkId,
        publisher_id: publisherId,
        program_id: 1001 + program,
        campaign_id: 501 + program,
        subid: `s${link % 20}`,
        created_at: at,
        user_agent: 'Mozilla/5.0',
        ip_hash: (i % 5000).toString(16).padStart(32, '0'),
        referrer: '',
        is_bot: false,
      });
    }
    await data.links.insertClickRows(rows);
  }
  return performance.now() - t0;
}

async function measure(publisherId: string) {
  const times: number[] = [];
  let found = 0;
  for (let i = 0; i < Number(values.lookups); i++) {
    const occurredAt = new Date(now - Math.floor(Math.random() * 60 * DAY));
    const t = performance.now();
    const clicks = await gatherEvidence({ config: { keys }, data }, { publisherId, program: { _id: 1001, merchant_id: 501, cookie_days: 30 }, occurredAt });
    times.push(performance.now() - t);
    found += clicks.length;
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: q(0.5), p99: q(0.99), clicksPerLookup: found / times.length };
}

const small = Number(values.small);
const large = Number(values.large);
console.log(`seeding ${small} and ${large} clicks…`);
const seededSmall = await seed('pub_bench_inq_small', small);
const seededLarge = await seed('pub_bench_inq_large', large);
// Warm both (the engine's first reads of each account's index), then measure, small then large.
await measure('pub_bench_inq_small');
await measure('pub_bench_inq_large');
const rs = await measure('pub_bench_inq_small');
const rl = await measure('pub_bench_inq_large');
const row = (label: string, n: number, r: { p50: number; p99: number; clicksPerLookup: number }, seeded: number) =>
  `| ${label} | ${n.toLocaleString('en')} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.clicksPerLookup.toFixed(1)} | ${(seeded / 1000).toFixed(0)} s |`;
console.log('| account | clicks | p50 ms | p99 ms | clicks found per lookup | seeded in |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
console.log(row('small', small, rs, seededSmall));
console.log(row('large', large, rl, seededLarge));
console.log(`large / small: p50 ${(rl.p50 / rs.p50).toFixed(2)}x, p99 ${(rl.p99 / rs.p99).toFixed(2)}x`);
await db.close();
await engine.stop();
