/**
 * Lists read in index order: each list's first page, asked for through HTTP, is the `find` the
 * test captures (mongoose's debug hook sees exactly what is sent) and then explains. The plan
 * sorts nothing in memory and examines no more documents than the page and its look-ahead row.
 * The same on a real MongoDB when MONGODB_URI is set. Clicks are read from buckets, several finds
 * a page: tools/dev-stack/test/click-buckets.int.test.ts explains each.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as reportingApi } from '@cw/app-reporting-api';

let deps: TestDeps;
let publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
let reporting: ReturnType<ReturnType<typeof reportingApi>['callback']>;
const sent: Array<{ collection: string; filter: Record<string, unknown>; options: Record<string, unknown> }> = [];
const PAGE = 5;

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20, env: { RATELIMIT_REPORTING_PER_MIN: '100000' } });
  publisher = publisherApi(deps).callback();
  reporting = reportingApi(deps).callback();
  // The demo account has no postback deliveries: a few, a day apart.
  const owner = deps.demo!.publishers[0];
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1 + i));
  await deps.models.PostbackDelivery.insertMany(
    Array.from({ length: 12 }, (_, i) => ({
      _id: `dlv_plan_${i}`,
      publisher_id: owner.account_id,
      event_id: `evt_${i}`,
      event: 'conversion.created',
      body: '{}',
      status: 'succeeded',
      created_at: at(i),
      updated_at: at(i),
    })),
  );
  deps.db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
    if (method === 'find') sent.push({ collection, filter: args[0] as Record<string, unknown>, options: (args[1] ?? {}) as Record<string, unknown> });
  });
});
afterAll(async () => deps?.close());

interface PlanStage {
  stage: string;
  inputStage?: PlanStage;
  inputStages?: PlanStage[];
}
const stages = (s: PlanStage | undefined): string[] => (s ? [s.stage, ...stages(s.inputStage), ...(s.inputStages ?? []).flatMap(stages)] : []);

/** The find a request sent to `collection` (the last one), explained with executionStats. */
async function explainListOf(path: string, collection: string) {
  sent.length = 0;
  const caller = deps.demo!.publishers[0];
  const res = path.startsWith('/api/v1/affiliate-reporting/')
    ? await request(reporting).get(path).set('Authorization', `Bearer ${caller.reporting_token}`)
    : await request(publisher).get(path).set('X-API-Key', caller.keys.live);
  expect(res.status, path).toBe(200);
  expect(res.body.data.length, `${path} returns a full page`).toBe(PAGE);
  const find = sent.filter((c) => c.collection === collection).pop();
  expect(find, `${path} reads ${collection}`).toBeDefined();
  const { sort, skip, limit } = find!.options as { sort?: Record<string, number>; skip?: number; limit?: number };
  const explained = await deps.db.connection.db!.command({
    explain: { find: collection, filter: find!.filter, ...(sort ? { sort } : {}), ...(skip ? { skip } : {}), ...(limit ? { limit } : {}) },
    verbosity: 'executionStats',
  });
  return {
    sort,
    plan: stages(explained.queryPlanner.winningPlan as PlanStage),
    stats: explained.executionStats as { totalDocsExamined: number; nReturned: number },
  };
}

describe('list queries read their first page in index order', () => {
  const P = '/api/v1/publisher';
  const R = '/api/v1/affiliate-reporting';
  for (const [path, model] of [
    [`${P}/conversions/?page_size=${PAGE}`, 'Conversion'],
    [`${P}/links/?page_size=${PAGE}`, 'Link'],
    [`${P}/postback/deliveries/?page_size=${PAGE}`, 'PostbackDelivery'],
    [`${P}/programs/?page_size=${PAGE}`, 'Program'],
    [`${R}/sales/?page_size=${PAGE}`, 'Conversion'],
    [`${R}/subid-sales/?page_size=${PAGE}`, 'Conversion'],
  ] as const) {
    it(`GET ${path}: IXSCAN, no in-memory SORT, at most page_size + 1 documents examined`, async () => {
      const { sort, plan, stats } = await explainListOf(path, deps.models[model].collection.collectionName);
      expect(Object.keys(sort ?? {}).pop()).toBe('_id');
      expect(plan).toContain('IXSCAN');
      expect(plan).not.toContain('SORT');
      expect(stats.totalDocsExamined).toBeLessThanOrEqual(PAGE + 1);
    });
  }
});

describe('a list filtered by sub-ID reads only that sub-ID', () => {
  it('GET /conversions/?subid=: IXSCAN of the sub-ID, no in-memory SORT, at most page_size + 1 documents examined', async () => {
    const owner = deps.demo!.publishers[0].account_id;
    const [top] = await deps.models.Conversion.aggregate<{ _id: string; n: number }>([
      { $match: { publisher_id: owner, subid: { $nin: [null, ''] } } },
      { $group: { _id: '$subid', n: { $sum: 1 } } },
      { $sort: { n: -1 } },
      { $limit: 1 },
    ]);
    expect(top!.n).toBeGreaterThan(PAGE);
    const { plan, stats } = await explainListOf(
      `/api/v1/publisher/conversions/?page_size=${PAGE}&subid=${encodeURIComponent(top!._id)}`,
      deps.models.Conversion.collection.collectionName,
    );
    expect(plan).toContain('IXSCAN');
    expect(plan).not.toContain('SORT');
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(PAGE + 1);
  });
});

describe('/Apiv3/json getConversions reads its page in index order', () => {
  it('the default order: IXSCAN, no in-memory SORT, at most limit + the rows of other sources examined', async () => {
    sent.length = 0;
    const caller = deps.demo!.publishers[0];
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const res = await request(reporting).get(
      `/Apiv3/json?api_key=${encodeURIComponent(caller.reporting_token)}&Target=Affiliate_Report&Method=getConversions&data_start=${day(Date.now() - 300 * 86_400_000)}&data_end=${day(Date.now())}&limit=${PAGE}`,
    );
    expect(res.body.response.data.data).toHaveLength(PAGE);
    const find = sent.filter((c) => c.collection === deps.models.Conversion.collection.collectionName).pop()!;
    const { sort, limit } = find.options as { sort: Record<string, number>; limit: number };
    expect(limit).toBe(PAGE);
    const explained = await deps.db.connection.db!.command({
      explain: { find: deps.models.Conversion.collection.collectionName, filter: find.filter, sort, limit },
      verbosity: 'executionStats',
    });
    const plan = stages(explained.queryPlanner.winningPlan as PlanStage);
    expect(plan).toContain('IXSCAN');
    expect(plan).not.toContain('SORT');
    // The newest rows of the account, less the ledger entries among them (source is checked on the row).
    const ledger = await deps.models.Conversion.countDocuments({ publisher_id: caller.account_id, source: 'ledger' });
    expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(PAGE + ledger);
  });
});
