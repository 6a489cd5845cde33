/**
 * One account's conversions for benchmarks: N over the last year (status 60% approved, 30%
 * pending, 10% declined; five sub-IDs; 1 in 7 in GBP), written in batches of 5,000.
 */
import { performance } from 'node:perf_hooks';
import { Decimal128 } from 'bson';
import { connectDatabase } from '@cw/db';
import type { ConversionRow } from '@cw/conversions';
import { openPlatformData } from '@cw/runtime';

const DAY = 86_400_000;
export const BENCH_SUBIDS = ['blog-header', 'newsletter', 'sidebar', 'footer', ''];

export async function seedConversions(uri: string, publisherId: string, n: number, now = Date.now()): Promise<void> {
  const db = await connectDatabase(uri);
  const { data } = openPlatformData(db.connection);
  const t0 = performance.now();
  for (let i = 0; i < n; i += 5000) {
    const rows: ConversionRow[] = [];
    for (let j = i; j < Math.min(n, i + 5000); j++) {
      const at = new Date(now - (j % 365) * DAY - (j % 86_000) * 1000);
      const status = j % 10 < 6 ? 'approved' : j % 10 < 9 ? 'pending' : 'declined';
      rows.push({
        _id: `cnv_b${j}`,
        publisher_id: publisherId,
        program_id: 1001,
        campaign_id: 501,
        click_id: `clk_b${j}`,
        link_id: 'bench',
        subid: BENCH_SUBIDS[j % 5],
        order_ref: `B-${j}`,
        status,
        sale_amount: Decimal128.fromString(`${(j % 500) + 10}.99`),
        commission: Decimal128.fromString(`${((j % 500) + 10) * 0.08}`.slice(0, 8)),
        currency: j % 7 === 0 ? 'GBP' : 'EUR',
        occurred_at: at,
        reversed: false,
        paid: false,
        source: 'v1',
        events: [],
        created_at: at,
        updated_at: at,
      } as unknown as ConversionRow);
    }
    await data.conversions.insertRows(rows);
  }
  console.log(`seeded ${n.toLocaleString('en-US')} conversions for ${publisherId} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await db.close();
}
