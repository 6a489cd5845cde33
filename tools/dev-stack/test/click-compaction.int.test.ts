/**
 * The compaction of a low-traffic account's clicks (issue 45, docs/scaling.md): its one-click
 * buckets, counted and an hour old, become wide buckets of a day. Through every state a merge can
 * be left in (merged with its sources still there, sources gone but not settled, settled), every
 * `/clicks/` list, cursor given before, lookup by id, count and rebuild answers what it answered
 * before; a batch not counted yet stays as it is and is counted once; the read at a cursor inside
 * a wide bucket is explained (one more index read, no sort).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactClicks, countStoredClicks, readFacts, rebuildStats, storeClicks } from '@cw/stats';
import { ClickIds, ensureLinks, type ClickBucketDoc, type ClickRow } from '@cw/links';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { runCli } from '@cw-tools/admin-cli';
import { createApp as publisherApi } from '@cw/app-publisher-api';

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

/** Accounts of the demo data with no clicks of their own: one for each test. */
const ACCOUNTS = [
  { id: 'pub_nomarkets', key: () => deps.demo!.special_keys.no_markets },
  { id: 'pub_nofeed', key: () => deps.demo!.special_keys.no_feed_access },
];
const get = (path: string, i: number) => request(publisher).get(`${B}${path}`).set('X-API-Key', ACCOUNTS[i]!.key());

/** Every id of a list, page after page by cursor (and the cursors it was given). */
async function walk(path: string, i: number, cursor?: string): Promise<{ ids: string[]; cursors: string[] }> {
  const ids: string[] = [];
  const cursors: string[] = [];
  for (let c: string | null | undefined = cursor, first = true; first || c; first = false) {
    const res = await get(`${path}&page_size=83${c ? `&cursor=${encodeURIComponent(c)}` : ''}`, i);
    expect(res.status, path).toBe(200);
    ids.push(...(res.body.data as Array<{ id: string }>).map((x) => x.id));
    c = res.body.next_cursor;
    if (c) cursors.push(c);
  }
  return { ids, cursors };
}

/** A low-traffic account's history: one click every 70 s over two past days (each its own bucket), on two links. */
async function lowTraffic(i: number, tag: string) {
  const pub = ACCOUNTS[i]!.id;
  const ids = new ClickIds(deps.config.keys);
  const links = await ensureLinks(
    deps.data.links,
    deps.config.secretKey,
    ['a', 'b'].map((s) => ({ publisherId: pub, programId: 1001, merchantId: 501, landingUrl: `https://www.example.com/${tag}`, subid: `${tag}-${s}` })),
    { source: 'api', listed: true },
  );
  const day0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
  const clicks = Array.from({ length: 1400 }, (_, k): ClickRow => {
    const at = new Date(day0 + 3_000 + k * 70_000 + (k >= 1200 ? DAY - 1200 * 70_000 : 0));
    const bot = k % 7 === 3;
    const link = links[k % 2]!.code;
    return {
      // Clicks from before ids were signed among them (found by the sparse index).
      _id: k % 100 === 50 ? `clk_${tag}_${k}` : ids.next(link, { isBot: bot }, at.getTime()),
      link_id: link,
      publisher_id: pub,
      program_id: 1001,
      campaign_id: 501,
      subid: k === 777 ? `${tag}-rare` : `${tag}-${k % 2 ? 'b' : 'a'}`,
      created_at: at,
      user_agent: bot ? 'curl/8.5.0' : BROWSER,
      ip_hash: (k % 40).toString(16).padStart(32, '0'),
      referrer: k % 3 ? '' : 'https://blog.example/',
      is_bot: bot,
      ...(bot ? { bot_reason: 'user_agent' as const } : {}),
    };
  });
  // Stored by the tracker one flush at a time (each click its own window, so its own bucket), and counted.
  await deps.data.links.insertClickRows(clicks);
  return { pub, links: links.map((l) => l.code), clicks };
}

describe("a low-traffic account's clicks compacted", () => {
  it('every list, earlier cursor, lookup, count and rebuild answers the same through each state of a merge', { timeout: 240_000 }, async () => {
    const { pub, links, clicks } = await lowTraffic(0, 'cmp');
    // A batch whose transaction is still open (its writer's count pending) within the history: left as it is.
    const ids = new ClickIds(deps.config.keys);
    const lateAt = new Date(clicks[600]!.created_at.getTime() + 20_000);
    const late: ClickRow = { ...clicks[600]!, _id: ids.next(links[0]!, { isBot: false }, lateAt.getTime()), created_at: lateAt, is_bot: false, subid: 'cmp-a' };
    delete late.bot_reason;
    await storeClicks(deps, [late], (rows, txn) => deps.data.links.insertClickRows(rows, txn));
    await rebuildStats(deps, { publisherId: pub });
    const bucketsBefore = await deps.models.ClickBucket.countDocuments({ publisher_id: pub });
    expect(bucketsBefore).toBe(1401);

    const lists = [
      '/clicks/?include_bots=true',
      '/clicks/?sub_id=cmp-b',
      '/clicks/?sub_id=cmp-rare',
      `/clicks/?deeplink_id=${links[0]}&include_bots=true`,
      '/clicks/?campaign_id=501',
    ];
    const before = await Promise.all(lists.map((l) => walk(l, 0)));
    expect(before[0]!.ids).toHaveLength(1401);
    expect(before[2]!.ids).toHaveLength(1);
    const cursors = before[0]!.cursors;
    const fromCursors = await Promise.all(cursors.map((c) => walk('/clicks/?include_bots=true', 0, c)));
    const sample = [...clicks.filter((_, k) => k % 97 === 0 || k % 100 === 50), late];
    const humansBefore = (await readFacts(deps, { publisherId: pub })).reduce((n, f) => n + (f.clicks ?? 0), 0);

    const same = async (state: string) => {
      expect(
        (await Promise.all(lists.map((l) => walk(l, 0)))).map((w) => w.ids),
        state,
      ).toEqual(before.map((w) => w.ids));
      expect(
        (await Promise.all(cursors.map((c) => walk('/clicks/?include_bots=true', 0, c)))).map((w) => w.ids),
        state,
      ).toEqual(fromCursors.map((w) => w.ids));
      for (const c of sample) expect(await deps.data.links.clickById(c._id), `${state}: ${c._id}`).toMatchObject(c);
      expect((await rebuildStats(deps, { publisherId: pub })).cells_changed, state).toBe(0);
    };

    // Merged: wide buckets stored beside their sources.
    const run = await compactClicks(deps, { publisherIds: [pub] });
    // Day one: 1,200 clicks (1,000 and 200), day two: 200; the open batch's bucket left out.
    expect(run).toMatchObject({ accounts: 1, merged: 3, buckets: 1400, clicks: 1400, settled: 0 });
    const wide = await deps.models.ClickBucket.find({ publisher_id: pub, w: { $exists: true } })
      .sort({ t1: 1 })
      .lean<ClickBucketDoc[]>();
    expect(wide.map((w) => [w.w, w.n])).toEqual([
      [2, 1000],
      [2, 200],
      [2, 200],
    ]);
    for (const [a, b] of wide.slice(0, -1).map((w, i) => [w, wide[i + 1]!] as const)) expect(a.t1.getTime()).toBeLessThan(b.t0.getTime());
    await same('merged, sources still there');

    // A settle that stopped after deleting the first merge's sources, before marking it settled.
    await deps.models.ClickBucket.deleteMany({ publisher_id: pub, _id: { $in: wide[0]!.src } });
    await same('sources of one merge deleted, not settled');

    // A run within two minutes of the merges settles nothing; a later one settles them all and merges nothing new.
    expect(await compactClicks(deps, { publisherIds: [pub] })).toMatchObject({ merged: 0, settled: 0 });
    expect(await compactClicks(deps, { publisherIds: [pub], now: new Date(Date.now() + 3 * 60_000) })).toMatchObject({ merged: 0, settled: 3 });
    expect(await deps.models.ClickBucket.countDocuments({ publisher_id: pub })).toBe(4);
    expect(await deps.models.ClickBucket.countDocuments({ publisher_id: pub, w: 1 })).toBe(3);
    await same('settled');

    // The open batch, counted now by the worker's round, is found by its transaction and counted once.
    await countStoredClicks(deps);
    const humansAfter = (await readFacts(deps, { publisherId: pub })).reduce((n, f) => n + (f.clicks ?? 0), 0);
    expect(humansAfter).toBe(humansBefore + 1);
    expect(humansAfter).toBe((await deps.data.links.storedClicks({ publisherId: pub })).filter((c) => !c.is_bot).length);
    expect((await rebuildStats(deps, { publisherId: pub })).cells_changed).toBe(0);
    // The open batch's bucket is counted now, but lies in a day already compacted: it stays as it is.
    expect(await compactClicks(deps, { publisherIds: [pub], now: new Date(Date.now() + 4 * 60_000) })).toMatchObject({ merged: 0 });
    // Clicks of the next day stored late (a tracker that held them while the database was away): merged by the next run.
    const heldAt = clicks.at(-1)!.created_at.getTime() + DAY;
    const held = [0, 1].map((k): ClickRow => {
      const at = new Date(heldAt + k * 30_000);
      return { ...clicks[0]!, _id: ids.next(links[0]!, { isBot: false }, at.getTime()), created_at: at, subid: 'cmp-a', is_bot: false, bot_reason: null };
    });
    await deps.data.links.insertClickRows(held);
    expect(await compactClicks(deps, { publisherIds: [pub], now: new Date(Math.max(Date.now(), heldAt + 2 * DAY)) })).toMatchObject({ merged: 1, buckets: 2 });
  });

  it('`clicks:compact` merges and settles an account, answering what it did', { timeout: 120_000 }, async () => {
    const { pub } = await lowTraffic(1, 'cli');
    const before = (await walk('/clicks/?include_bots=true', 1)).ids;
    const cli = await runCli(
      ['clicks:compact', '--publisher', pub, '--settle-after-seconds', '0', '--json'],
      { MONGODB_URI: deps.tdb.uri },
      mkdtempSync(join(tmpdir(), 'clicks-compact-')),
    );
    expect(cli.code, cli.out).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({ accounts: 1, merged: 3, buckets: 1400, clicks: 1400, settled: 3 });
    expect(await deps.models.ClickBucket.countDocuments({ publisher_id: pub })).toBe(3);
    expect((await walk('/clicks/?include_bots=true', 1)).ids).toEqual(before);
    const bad = await runCli(
      ['clicks:compact', '--publisher', 'pub_nobody', '--json'],
      { MONGODB_URI: deps.tdb.uri },
      mkdtempSync(join(tmpdir(), 'clicks-compact-')),
    );
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/publisher pub_nobody does not exist/);
  });

  it('a page at a cursor inside a wide bucket: one more index read (the wide bucket straddling the window), no sort', async () => {
    const sent: Array<{ filter: Record<string, unknown>; options: Record<string, unknown>; one: boolean }> = [];
    const { cursors } = await walk('/clicks/?include_bots=true', 1);
    deps.db.connection.set('debug', (collection: string, method: string, ...args: unknown[]) => {
      if (collection === 'click_buckets' && (method === 'find' || method === 'findOne'))
        sent.push({ filter: args[0] as Record<string, unknown>, options: (args[1] ?? {}) as Record<string, unknown>, one: method === 'findOne' });
    });
    const res = await get(`/clicks/?include_bots=true&page_size=83&cursor=${encodeURIComponent(cursors[3]!)}`, 1);
    deps.db.connection.set('debug', false);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(83);
    let examined = 0;
    for (const find of sent) {
      const { sort, limit = find.one ? 1 : undefined } = find.options as { sort?: Record<string, number>; limit?: number };
      const explained = await deps.db.connection.db!.command({
        explain: { find: 'click_buckets', filter: find.filter, ...(sort ? { sort } : {}), ...(limit ? { limit } : {}) },
        verbosity: 'executionStats',
      });
      const plan = JSON.stringify(explained.queryPlanner.winningPlan);
      expect(plan).toContain('IXSCAN');
      expect(plan).not.toContain('"SORT"');
      examined += (explained.executionStats as { totalDocsExamined: number }).totalDocsExamined;
    }
    expect(sent.some((f) => 'w' in f.filter)).toBe(true);
    // The wide bucket the page is in (by the straddle read, which may look at the head of each of its two walks), and
    // the one before it, which ends the page.
    expect(examined).toBeLessThanOrEqual(3);
  });
});
