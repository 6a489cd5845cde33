/**
 * Cursors beside pages (DESIGN.md "Scale"): every page-based list, walked through HTTP by
 * `next_cursor`, returns exactly what walking it by `page` returns (rows sharing a sort value
 * included); a cursor page reads in index order however deep; a cursor that is not the list's, the
 * account's or the filter's is a 400; a page past 10,000 rows is 400 `page_too_deep`.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Types } from 'mongoose';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as reportingApi } from '@cw/app-reporting-api';

let deps: TestDeps;
let publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
let reporting: ReturnType<ReturnType<typeof reportingApi>['callback']>;
const P = '/api/v1/publisher';
const R = '/api/v1/affiliate-reporting';
const TIE = new Date(Date.UTC(2026, 5, 1, 12));

beforeAll(async () => {
  deps = await createTestDeps({
    seedProducts: 20,
    env: {
      RATELIMIT_REPORTING_PER_MIN: '100000',
      RATELIMIT_REPORTING_TOKEN_PER_MIN: '100000',
      RATELIMIT_ACCOUNT_PER_MIN: '100000',
      RATELIMIT_PROGRAMS_PER_MIN: '100000',
      RATELIMIT_LINKS_PER_MIN: '100000',
      RATELIMIT_POSTBACKS_PER_MIN: '100000',
      RATELIMIT_IP_PER_MIN: '100000',
    },
  });
  publisher = publisherApi(deps).callback();
  reporting = reportingApi(deps).callback();
  const owner = deps.demo!.publishers[0];
  // Seven sales at one instant and seven deliveries at one instant: a page boundary falls among them.
  const base = (await deps.models.Conversion.findOne({ publisher_id: owner.account_id }).lean())!;
  await deps.models.Conversion.insertMany(
    Array.from({ length: 7 }, (_, i) => ({
      ...base,
      _id: `conv_tie_${i}`,
      occurred_at: TIE,
      created_at: TIE,
      updated_at: TIE,
      commission: Types.Decimal128.fromString('1.00'),
    })),
  );
  await deps.models.PostbackDelivery.insertMany(
    Array.from({ length: 17 }, (_, i) => ({
      _id: `dlv_cur_${String(i).padStart(2, '0')}`,
      publisher_id: owner.account_id,
      event_id: `evt_${i}`,
      event: 'sale.created',
      body: '{}',
      status: 'succeeded',
      created_at: i < 7 ? TIE : new Date(TIE.getTime() + i * 1000),
      updated_at: TIE,
    })),
  );
});
afterAll(async () => deps?.close());

const get = (path: string, who = deps.demo!.publishers[0]) =>
  path.startsWith(R)
    ? request(reporting).get(path).set('Authorization', `Bearer ${who.reporting_token}`)
    : request(publisher).get(path).set('X-API-Key', who.keys.live);

const idOf = (row: Record<string, unknown>) => String(row.id ?? row.sale_id);
const join = (path: string, extra: string) => `${path}${path.includes('?') ? '&' : '?'}${extra}`;

async function walk(path: string, by: 'page' | 'cursor') {
  const ids: string[] = [];
  let next: string | number | null = by === 'page' ? 1 : null;
  for (let i = 0; i < 1000; i++) {
    const res = await get(by === 'page' ? join(path, `page=${next}`) : next === null ? path : join(path, `cursor=${encodeURIComponent(String(next))}`));
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
    ids.push(...(res.body.data as Array<Record<string, unknown>>).map(idOf));
    expect(res.body.page).toBe(i + 1);
    expect(res.body.next_cursor === null).toBe(!res.body.has_more);
    next = by === 'page' ? res.body.next_page : res.body.next_cursor;
    if (next === null) return ids;
  }
  throw new Error(`${path}: more than 1000 pages`);
}

describe('cursors beside pages', () => {
  for (const path of [
    `${P}/conversions/?page_size=4`,
    `${P}/conversions/?page_size=3&status=pending`,
    `${P}/clicks/?page_size=100&include_bots=true`,
    `${P}/links/?page_size=2`,
    `${P}/postback/deliveries/?page_size=3`,
    `${P}/programs/?page_size=2&include_available=true`,
    `${P}/programs/joinable/?page_size=1`,
    `${R}/sales/?page_size=4`,
    `${R}/subid-sales/?page_size=5`,
  ]) {
    it(`GET ${path}: following next_cursor lists exactly what the pages list`, async () => {
      const byPage = await walk(path, 'page');
      expect(byPage.length).toBeGreaterThan(1);
      expect(new Set(byPage).size).toBe(byPage.length);
      expect(await walk(path, 'cursor')).toEqual(byPage);
    });
  }

  it('a cursor page reads in index order, however deep: page_size + 1 documents and the boundary row', async () => {
    const sent: Array<{ filter: Record<string, unknown>; options: Record<string, unknown> }> = [];
    deps.db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
      if (collection === deps.models.Conversion.collection.collectionName && method === 'find')
        sent.push({ filter: args[0] as never, options: (args[1] ?? {}) as never });
    });
    try {
      let cursor: string | null = null;
      for (let i = 0; i < 6; i++)
        cursor = (await get(join(`${P}/conversions/?page_size=5`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''))).body.next_cursor;
      sent.length = 0;
      const res = await get(`${P}/conversions/?page_size=5&cursor=${encodeURIComponent(cursor!)}`);
      expect(res.body.page).toBe(7);
      const find = sent.pop()!;
      const { sort, limit } = find.options as { sort: Record<string, number>; limit: number };
      expect(find.options.skip ?? 0).toBe(0);
      const explained = await deps.db.connection.db!.command({
        explain: { find: deps.models.Conversion.collection.collectionName, filter: find.filter, sort, limit },
        verbosity: 'executionStats',
      });
      expect(JSON.stringify(explained.queryPlanner.winningPlan)).toContain('IXSCAN');
      expect(JSON.stringify(explained.queryPlanner.winningPlan)).not.toContain('"SORT"');
      // The index range starts at the boundary's instant, so the last row shown is read again (and
      // any row sharing its instant); on MongoDB the rest of the filter is applied to index keys.
      expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(5 + 2);
    } finally {
      deps.db.connection.set('debug', false);
    }
  });

  it("answers 400 for a tampered cursor, another filter's, another list's and another account's", async () => {
    const first = await get(`${P}/conversions/?page_size=2&status=pending`);
    const cursor: string = first.body.next_cursor;
    expect(typeof cursor).toBe('string');
    const [v, body, mac] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { p: number };
    const forged = `${v}.${Buffer.from(JSON.stringify({ ...payload, p: 99 })).toString('base64url')}.${mac}`;
    const other = deps.demo!.publishers[1];
    for (const [path, who, detail] of [
      [`${P}/conversions/?page_size=2&status=pending&cursor=${forged}`, undefined, /not a cursor of this list/],
      [`${P}/conversions/?page_size=2&status=pending&cursor=garbage`, undefined, /not a cursor of this list/],
      [`${P}/conversions/?page_size=2&status=approved&cursor=${cursor}`, undefined, /another list, account or filter/],
      [`${P}/clicks/?page_size=2&cursor=${cursor}`, undefined, /another list, account or filter/],
      [`${P}/conversions/?page_size=2&status=pending&cursor=${cursor}`, other, /another list, account or filter/],
    ] as const) {
      const res = await get(path, who);
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('invalid_parameter');
      expect(res.body.errors).toEqual([expect.objectContaining({ param: 'cursor' })]);
      expect(res.body.detail).toMatch(detail);
      expect(res.body.request_id).toBeTruthy();
    }
    // The same filters with another page size follow on.
    const on = await get(`${P}/conversions/?page_size=3&status=pending&cursor=${cursor}`);
    expect(on.status).toBe(200);
    expect(on.body.page).toBe(2);
  });

  it('answers 400 page_too_deep for a page that would skip more than 10,000 rows, and serves the one just inside', async () => {
    const deep = await get(`${P}/conversions/?page_size=500&page=22`);
    expect(deep.status).toBe(400);
    expect(deep.body.code).toBe('page_too_deep');
    expect(deep.body.detail).toMatch(/next_cursor/);
    expect((await get(`${P}/conversions/?page_size=500&page=21`)).status).toBe(200);
    expect((await get(`${R}/sales/?page_size=1000&page=12`)).body.code).toBe('page_too_deep');
  });
});
