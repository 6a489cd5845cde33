/**
 * Clicks in buckets (issue 45): a database whose clicks were stored one row per click, as the
 * previous version stored them, is moved into buckets by `clicks:migrate` while the tracker keeps
 * answering, through an interrupted run; every list, cursor, count and lookup answers what it
 * answered before. Then each `/clicks/` read is explained: it reads buckets in index order, and
 * no more of them than its page is in (plus the one that ends it), whatever the account's history.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertManyTolerant } from '@cw/db';
import { readFacts, rebuildStats, recoverClickBatches, storeCountedClicks } from '@cw/stats';
import { ClickIds, ensureLinks, type ClickRow } from '@cw/links';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { runCli } from '@cw-tools/admin-cli';
import { createApp as publisherApi } from '@cw/app-publisher-api';
import { createApp as trackerApp } from '@cw/app-tracker';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const B = '/api/v1/publisher';
const DAY = 86_400_000;

let deps: TestDeps;
let publisher: ReturnType<ReturnType<typeof publisherApi>['callback']>;
beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 10, env: { RATELIMIT_REPORTING_PER_MIN: '1000000', RATELIMIT_IP_PER_MIN: '1000000' } });
  publisher = publisherApi(deps).callback();
});
afterAll(async () => deps?.close());

const get = (path: string, i: number) => request(publisher).get(`${B}${path}`).set('X-API-Key', deps.demo!.publishers[i].keys.live);

/** Every id of a list, page after page by cursor. */
async function walk(path: string, i: number, cursor?: string): Promise<string[]> {
  const ids: string[] = [];
  for (let c: string | null | undefined = cursor, first = true; first || c; first = false) {
    const res = await get(`${path}&page_size=97${c ? `&cursor=${encodeURIComponent(c)}` : ''}`, i);
    expect(res.status, path).toBe(200);
    ids.push(...(res.body.data as Array<{ id: string }>).map((x) => x.id));
    c = res.body.next_cursor;
  }
  return ids;
}

describe('upgrading a database of click rows', () => {
  it(
    'moves every row into buckets, resumably, while the tracker answers; lists, cursors, counts and lookups answer as before',
    { timeout: 240_000 },
    async () => {
      const pub = deps.demo!.publishers[1].account_id;
      const ids = new ClickIds(deps.config.keys);
      const [{ code }] = await ensureLinks(
        deps.data.links,
        deps.config.secretKey,
        [{ publisherId: pub, programId: 1001, merchantId: 501, landingUrl: 'https://www.example.com/', subid: 'upgrade' }],
        { source: 'api', listed: true },
      );
      // The previous version: each batch stored as one row per click, under its stats transaction.
      const rowsOf = (rows: ClickRow[], txn: string) =>
        insertManyTolerant(deps.models.Click.collection, rows.map((r) => ({ ...r, stats_txn: txn })) as never[]).then((r) => r.inserted);
      const old = Array.from({ length: 3000 }, (_, i): ClickRow => {
        const at = new Date(Date.now() - 20 * DAY + Math.floor(i / 3) * 1700);
        const bot = i % 11 === 0;
        return {
          // Clicks from before ids were signed, then signed ones.
          _id: i < 1000 ? `clk_old_${i}` : ids.next(code, { isBot: bot }, at.getTime()),
          link_id: code,
          publisher_id: pub,
          program_id: 1001,
          campaign_id: 501,
          subid: i < 1000 ? `old-${i % 7}` : 'upgrade',
          created_at: at,
          user_agent: bot ? 'curl/8.5.0' : BROWSER,
          ip_hash: String(i % 50).padStart(32, '0'),
          referrer: i % 3 ? '' : 'https://blog.example/',
          is_bot: bot,
          ...(bot ? { bot_reason: 'user_agent' as const } : {}),
        };
      });
      // Its transactions named every click of their batch.
      const everyClick = (rows: ClickRow[]) => rows.map((r) => r._id);
      for (let i = 0; i < 2500; i += 500) await storeCountedClicks(deps, old.slice(i, i + 500), rowsOf, everyClick);
      // A tracker of the previous version died after storing its last batch, before counting it.
      await storeCountedClicks(
        deps,
        old.slice(2500),
        async (rows, txn) => {
          await rowsOf(rows, txn);
          throw new Error('the tracker died here');
        },
        everyClick,
      ).catch(() => undefined);
      expect(await deps.models.Click.countDocuments({ publisher_id: pub })).toBe(3000);

      const lists = ['/clicks/?include_bots=true', '/clicks/?sub_id=old-3', `/clicks/?deeplink_id=${code}`, '/clicks/?campaign_id=501&include_bots=true'];
      const before = await Promise.all(lists.map((l) => walk(l, 1)));
      expect(before[0]!.length).toBeGreaterThan(3000);
      const page3 = await get('/clicks/?include_bots=true&page_size=200&page=3', 1);
      const afterPage3 = await walk('/clicks/?include_bots=true', 1, page3.body.next_cursor);

      // A run killed between storing buckets and deleting their rows.
      let steps = 0;
      const progress: number[] = [];
      await expect(
        deps.data.links.migrateClickRows({
          batch: 700,
          onProgress: (moved) => progress.push(moved),
          beforeDelete: async () => {
            if (++steps === 3) throw new Error('killed');
          },
        }),
      ).rejects.toThrow('killed');
      expect(progress).toEqual([expect.any(Number), expect.any(Number)]);
      expect(await deps.models.Click.countDocuments({ publisher_id: pub })).toBeLessThan(3000);
      // Half moved, one batch in both places: every list still answers the same, each click once.
      expect(await Promise.all(lists.map((l) => walk(l, 1)))).toEqual(before);

      // The rest, by the operator's command, while the tracker answers redirects.
      const tracker = trackerApp(deps);
      let answered = 0;
      const live = (async () => {
        for (let i = 0; i < 300; i++) {
          const res = await request(tracker.callback())
            .get(`/c/${code}`)
            .set('User-Agent', BROWSER)
            .set('X-Forwarded-For', `198.51.100.${i % 250}`);
          if (res.status === 302) answered++;
        }
      })();
      const cli = await runCli(['clicks:migrate', '--batch', '600', '--json'], { MONGODB_URI: deps.tdb.uri }, mkdtempSync(join(tmpdir(), 'clicks-migrate-')));
      await live;
      await tracker.clicks.close();
      expect(cli.code, cli.out).toBe(0);
      expect(JSON.parse(cli.out)).toMatchObject({ left: 0 });
      expect(await deps.models.Click.countDocuments()).toBe(0);
      expect(answered).toBe(300);

      // Every click stored once: the rows', and each redirect answered meanwhile.
      const stored = await deps.data.links.storedClicks({ linkId: code });
      expect(stored.length).toBe(3000 + answered);
      expect(new Set(stored.map((c) => c._id)).size).toBe(stored.length);
      const byId = new Map(stored.map((c) => [c._id, c]));
      for (const c of old) expect(byId.get(c._id), c._id).toMatchObject({ ...c, stats_txn: expect.any(String) });

      // Lists and a cursor given before the upgrade: the same ids in the same order (the new clicks are newer, first).
      const fresh = new Set(stored.filter((c) => !old.some((o) => o._id === c._id)).map((c) => c._id));
      const after = await Promise.all(lists.map((l) => walk(l, 1)));
      expect(after.map((ids) => ids.filter((id) => !fresh.has(id)))).toEqual(before);
      expect(await walk('/clicks/?include_bots=true', 1, page3.body.next_cursor)).toEqual(afterPage3);

      // A click id from before ids were signed still attributes.
      expect(await deps.data.links.clickById('clk_old_42')).toMatchObject({ link_id: code, publisher_id: pub, subid: 'old-0', program_id: 1001 });
      // The dead tracker's batch is counted once, from its buckets; the read model equals the clicks stored.
      await recoverClickBatches(deps, new Date(Date.now() + 3_600_000));
      const facts = await readFacts(deps, { publisherId: pub, subid: 'upgrade', bySubid: true });
      expect(facts.reduce((n, f) => n + (f.clicks ?? 0), 0)).toBe(stored.filter((c) => c.subid === 'upgrade' && !c.is_bot).length);
      expect((await rebuildStats(deps, { publisherId: pub })).cells_changed).toBe(0);
    },
  );
});

interface PlanStage {
  stage: string;
  inputStage?: PlanStage;
  inputStages?: PlanStage[];
}
const stages = (s: PlanStage | undefined): string[] => (s ? [s.stage, ...stages(s.inputStage), ...(s.inputStages ?? []).flatMap(stages)] : []);

describe('a clicks page reads the buckets it is in, in index order', () => {
  const sent: Array<{ filter: Record<string, unknown>; options: Record<string, unknown> }> = [];
  const BATCHES = 400;
  let total = 0;

  beforeAll(async () => {
    // A long history in the future of the demo's clicks: 400 tracker batches of 25 clicks a minute apart, one rare sub-ID deep in it.
    const pub = deps.demo!.publishers[0].account_id;
    const ids = new ClickIds(deps.config.keys);
    const start = Date.now() + 30 * DAY;
    for (let j = 0; j < BATCHES; j++)
      await deps.data.links.insertClickRows(
        Array.from({ length: 25 }, (_, i): ClickRow => {
          const at = new Date(start - j * 60_000 + i * 7);
          const rare = j === 300 && i === 3;
          return {
            _id: ids.next('lnkplan', { isBot: false }, at.getTime()),
            link_id: 'lnkplan',
            publisher_id: pub,
            program_id: 1001,
            campaign_id: 501,
            subid: rare ? 'plan-rare' : `plan-${i % 5}`,
            created_at: at,
            user_agent: BROWSER,
            ip_hash: '0'.repeat(32),
            referrer: '',
            is_bot: false,
          };
        }),
      );
    total = await deps.models.ClickBucket.countDocuments({ publisher_id: pub });
    deps.db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
      if (collection === 'click_buckets' && method === 'find')
        sent.push({ filter: args[0] as Record<string, unknown>, options: (args[1] ?? {}) as Record<string, unknown> });
    });
  });

  /** Every bucket read a request made, explained. */
  async function explainReads(path: string) {
    sent.length = 0;
    const res = await get(path, 0);
    expect(res.status, path).toBe(200);
    const plans = [];
    for (const find of sent) {
      const { sort, limit } = find.options as { sort?: Record<string, number>; limit?: number };
      const explained = await deps.db.connection.db!.command({
        explain: { find: 'click_buckets', filter: find.filter, ...(sort ? { sort } : {}), ...(limit ? { limit } : {}) },
        verbosity: 'executionStats',
      });
      plans.push({
        plan: stages(explained.queryPlanner.winningPlan as PlanStage),
        stats: explained.executionStats as { totalDocsExamined: number; nReturned: number },
      });
    }
    return { body: res.body as { data: Array<{ id: string; sub_id: string | null }>; next_cursor: string | null }, plans };
  }

  const examined = (plans: Array<{ stats: { totalDocsExamined: number } }>) => plans.reduce((n, p) => n + p.stats.totalDocsExamined, 0);

  // The buckets holding a page and its look-ahead click (25 clicks a bucket, a fifth of them per sub-ID);
  // a read may examine those, one ending the page and one more its last round asked for.
  for (const [what, path, holding] of [
    ['the first page', '/clicks/?page_size=20&include_bots=true', 1],
    ['the first page, bots left out', '/clicks/?page_size=20', 1],
    ['a page of one link', '/clicks/?page_size=20&deeplink_id=lnkplan', 1],
    ['a page of one sub-ID', '/clicks/?page_size=20&sub_id=plan-2', 5],
    ['a sub-ID found once, deep in the history', '/clicks/?page_size=20&sub_id=plan-rare', 1],
  ] as const) {
    it(`${what}: IXSCAN, no in-memory SORT, at most ${holding + 2} of ${BATCHES}+ buckets examined`, async () => {
      const { body, plans } = await explainReads(path);
      expect(body.data.length).toBeGreaterThan(0);
      expect(total).toBeGreaterThanOrEqual(BATCHES);
      for (const p of plans) {
        expect(p.plan).toContain('IXSCAN');
        expect(p.plan).not.toContain('SORT');
      }
      expect(examined(plans)).toBeLessThanOrEqual(holding + 2);
    });
  }

  it('a page 200 deep by cursor: the buckets of its clicks and of the cursor window, not the history before it', async () => {
    let cursor: string | null = null;
    for (let i = 0; i < 200; i++)
      cursor = (await get(`/clicks/?page_size=20&include_bots=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 0)).body.next_cursor;
    const { body, plans } = await explainReads(`/clicks/?page_size=20&include_bots=true&cursor=${encodeURIComponent(cursor!)}`);
    expect(body.data).toHaveLength(20);
    for (const p of plans) expect(p.plan).not.toContain('SORT');
    // The page's 21 clicks are in one bucket, the cursor's position in the one before it; one ends the page, one more
    // a round asked for, and the second round's query meets again the bucket it continues after (its keyset bound).
    expect(examined(plans)).toBeLessThanOrEqual(1 + 1 + 2 + 1);
  });
});
