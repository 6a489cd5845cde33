/**
 * The link health pass (@cw/links `checkLinkHealth`, the job's work) on the embedded engine through
 * mongoose, against the real programs and catalog data (here: the links lib may not depend on the
 * catalog, which depends on it): each state from what the programs and the catalog say, `since` kept while a state
 * lasts and moved when it changes, only changes written, batches of any size, and the clicks lost
 * of links that stay unhealthy recounted.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Types } from 'mongoose';
import { createDeliveryAgent } from '@cw/postbacks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogDomain, type CatalogData, type ProductRow } from '@cw/catalog';
import { programsDomain, type ProgramsData } from '@cw/programs';
import { openDomain, startTestDatabase, type TestDatabase } from '@cw-tools/test-engine';
import { checkLinkHealth, healthOf, landingProbe, linksDomain, type HealthDeps, type LinkRow, type LinksData } from '@cw/links';

let engine: TestDatabase;
let deps: HealthDeps & { data: { links: LinksData; programs: ProgramsData; catalog: CatalogData } };

const T0 = new Date('2026-12-01T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const product = (id: string, country: string, availability: string, over: Partial<ProductRow> = {}): ProductRow =>
  ({
    _id: id,
    gtin: '4006381333931',
    gtin14: '04006381333931',
    title: id,
    title_lc: id,
    price: Types.Decimal128.fromString('10.00'),
    currency: 'EUR',
    source_url: `https://shop.example/${id}`,
    merchant_id: 501,
    program_id: 1,
    country,
    availability,
    last_seen_at: at(-60),
    fresh_until: at(7 * 24 * 60),
    removed: false,
    ...over,
  }) as unknown as ProductRow;

const link = (id: string, publisher: string, program: number, productId?: { id: string; market: string }): LinkRow =>
  ({
    _id: id,
    publisher_id: publisher,
    program_id: program,
    campaign_id: 501,
    landing_url: `https://shop.example/${id}`,
    subid: '',
    source: productId ? 'product' : 'api',
    ...(productId ? { product: { id: productId.id, gtin: '4006381333931', market: productId.market } } : {}),
    listed: !productId,
    created_at: at(-24 * 60),
    updated_at: at(-24 * 60),
  }) as unknown as LinkRow;

const states = async () => {
  const rows = await deps.data.links.byCodes(['L_ok', 'L_paused', 'L_closed', 'L_pending', 'L_in', 'L_out', 'L_market', 'L_gone', 'L_stale', 'L_noprog']);
  return Object.fromEntries([...rows].map(([code, l]) => [code, healthOf(l)]));
};

beforeAll(async () => {
  engine = await startTestDatabase();
  deps = {
    data: {
      links: await openDomain(engine, linksDomain),
      programs: await openDomain(engine, programsDomain),
      catalog: await openDomain(engine, catalogDomain),
    },
  };
  const p = (id: number, status: 'active' | 'paused' | 'closed') => ({
    _id: id,
    name: `P${id}`,
    merchant_id: 500 + id,
    countries: ['DE'],
    status,
    default_landing_url: 'https://shop.example/',
  });
  await deps.data.programs.create([p(1, 'active'), p(2, 'paused'), p(3, 'closed')]);
  await deps.data.programs.saveAssignments([
    { publisher_id: 'pub_a', program_id: 1, status: 'approved' },
    { publisher_id: 'pub_a', program_id: 2, status: 'approved' },
    { publisher_id: 'pub_a', program_id: 3, status: 'approved' },
    { publisher_id: 'pub_b', program_id: 1, status: 'pending' },
  ]);
  await deps.data.catalog.insertRows([
    product('prod_in', 'DE', 'in_stock'),
    product('prod_out', 'DE', 'out_of_stock'),
    product('prod_fr', 'FR', 'in_stock'),
    product('prod_stale', 'DE', 'in_stock', { last_seen_at: at(-72 * 60) } as Partial<ProductRow>),
  ]);
  await deps.data.links.insertNew([
    link('L_ok', 'pub_a', 1),
    link('L_paused', 'pub_a', 2),
    link('L_closed', 'pub_a', 3),
    link('L_pending', 'pub_b', 1),
    link('L_in', 'pub_a', 1, { id: 'prod_in', market: 'DE' }),
    link('L_out', 'pub_a', 1, { id: 'prod_out', market: 'DE' }),
    link('L_market', 'pub_a', 1, { id: 'prod_fr', market: 'FR' }),
    link('L_gone', 'pub_a', 1, { id: 'prod_never_stored', market: 'DE' }),
    link('L_stale', 'pub_a', 1, { id: 'prod_stale', market: 'DE' }),
    link('L_noprog', 'pub_a', 99),
  ]);
}, 60_000);
afterAll(async () => {
  await engine?.stop();
});

describe('the link health pass', () => {
  it('shows a link never checked as ok since its creation', async () => {
    expect((await states()).L_paused).toEqual({ state: 'ok', since: at(-24 * 60) });
  });

  it('judges each link from its program, the assignment and the catalog, writing only the links found unhealthy', async () => {
    const r = await checkLinkHealth(deps, { now: T0, batch: 3 });
    expect(r).toMatchObject({ links: 10, changed: 8, unhealthy: 8 });
    const s = await states();
    expect(s).toEqual({
      L_ok: { state: 'ok', since: at(-24 * 60) },
      L_in: { state: 'ok', since: at(-24 * 60) },
      L_paused: { state: 'program_paused', since: T0 },
      L_closed: { state: 'program_ended', since: T0 },
      L_noprog: { state: 'program_ended', since: T0 },
      L_pending: { state: 'not_approved', since: T0 },
      L_out: { state: 'out_of_stock', since: T0 },
      L_gone: { state: 'out_of_stock', since: T0 },
      L_stale: { state: 'out_of_stock', since: T0 },
      // The program no longer serves the product's market.
      L_market: { state: 'program_ended', since: T0 },
    });
  });

  it('keeps since on a later pass that finds the same states, and writes nothing', async () => {
    const r = await checkLinkHealth(deps, { now: at(15), batch: 1000 });
    expect(r).toMatchObject({ links: 10, changed: 0, unhealthy: 8 });
    expect((await states()).L_paused).toEqual({ state: 'program_paused', since: T0 });
  });

  it('moves since when a state changes: a program resumed is ok again, one paused turns its links program_paused', async () => {
    await deps.data.programs.setStatus(2, 'active');
    await deps.data.programs.setStatus(1, 'paused');
    const r = await checkLinkHealth(deps, { now: at(30), batch: 4 });
    const s = await states();
    expect(s.L_paused).toEqual({ state: 'ok', since: at(30) });
    // Out of stock before, the program's pause now comes first.
    expect(s.L_out).toEqual({ state: 'program_paused', since: at(30) });
    expect(s.L_in).toEqual({ state: 'program_paused', since: at(30) });
    expect(s.L_closed).toEqual({ state: 'program_ended', since: T0 });
    expect(r.changed).toBe(8);
    await deps.data.programs.setStatus(1, 'active');
    await checkLinkHealth(deps, { now: at(45) });
    const back = await states();
    expect(back.L_in).toEqual({ state: 'ok', since: at(45) });
    expect(back.L_out).toEqual({ state: 'out_of_stock', since: at(45) });
  });

  it('recounts the clicks lost by links that stay unhealthy, from each one’s since, and names the accounts that lost more', async () => {
    const asked: Array<{ publisherId: string; ids: string[] }> = [];
    const clicks = new Map([
      ['L_closed', 7],
      ['L_pending', 2],
    ]);
    const clicksSince = async (publisherId: string, links: Array<{ id: string; since: Date }>) => {
      asked.push({ publisherId, ids: links.map((l) => l.id).sort() });
      return new Map(links.filter((l) => clicks.has(l.id)).map((l) => [l.id, clicks.get(l.id)!]));
    };
    const r = await checkLinkHealth(deps, { now: at(60), clicksSince });
    expect([...r.losing].sort()).toEqual(['pub_a', 'pub_b']);
    // Only links unhealthy before this pass and still unhealthy are counted (ok links are not asked for).
    expect(asked.flatMap((a) => a.ids)).not.toContain('L_ok');
    expect(asked.flatMap((a) => a.ids)).not.toContain('L_in');
    const losing = await deps.data.links.losingClicks('pub_a', 10);
    expect(losing.map((l) => [l._id, l.health?.clicks_lost])).toEqual([['L_closed', 7]]);
    expect(await deps.data.links.unhealthyCount('pub_a')).toBe(6);
    // The same counts again: nothing grew, nobody to mail.
    const again = await checkLinkHealth(deps, { now: at(75), clicksSince });
    expect(again.losing.size).toBe(0);
    expect(again.changed).toBe(0);
  });

  it('checks the landing URL only of links that ask for it: HEAD, GET when HEAD is refused, unreachable when neither answers, never a private address unless allowed', async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/gone') return void res.writeHead(404).end();
      if (req.url === '/no-head' && req.method === 'HEAD') return void res.writeHead(405).end();
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = (id: string, path: string, check = true) =>
      ({ ...link(id, 'pub_a', 1), landing_url: `${base}${path}`, ...(check ? { check_landing: true } : {}) }) as unknown as LinkRow;
    await deps.data.links.insertNew([page('W_up', '/up'), page('W_nohead', '/no-head'), page('W_gone', '/gone'), page('W_off', '/gone', false)]);
    const agent = createDeliveryAgent({ allowInsecure: true, timeoutMs: 2000 });
    const codes = ['W_up', 'W_nohead', 'W_gone', 'W_off'];
    const health = async () => Object.fromEntries([...(await deps.data.links.byCodes(codes))].map(([c, l]) => [c, healthOf(l).state]));
    try {
      await checkLinkHealth(deps, { now: at(90), landing: landingProbe({ dispatcher: agent, allowInsecure: true, hostIntervalMs: 0 }) });
      expect(await health()).toEqual({ W_up: 'ok', W_nohead: 'ok', W_gone: 'unreachable', W_off: 'ok' });
      expect(seen.sort()).toEqual(['GET /gone', 'GET /no-head', 'HEAD /gone', 'HEAD /no-head', 'HEAD /up']);

      // The SSRF rules: a literal loopback address is refused without a request.
      seen.length = 0;
      await checkLinkHealth(deps, { now: at(105), landing: landingProbe({ dispatcher: agent, hostIntervalMs: 0 }) });
      expect(seen).toEqual([]);
      expect(await health()).toEqual({ W_up: 'unreachable', W_nohead: 'unreachable', W_gone: 'unreachable', W_off: 'ok' });

      // A host's share of a pass spent (one check): its other links keep their state, unchecked.
      seen.length = 0;
      await checkLinkHealth(deps, {
        now: at(120),
        landing: landingProbe({ dispatcher: agent, allowInsecure: true, perHostPerPass: 1, hostIntervalMs: 0 }),
      });
      expect(seen).toEqual(['HEAD /gone', 'GET /gone']);
      expect(await health()).toEqual({ W_up: 'unreachable', W_nohead: 'unreachable', W_gone: 'unreachable', W_off: 'ok' });
      await checkLinkHealth(deps, { now: at(135), landing: landingProbe({ dispatcher: agent, allowInsecure: true, hostIntervalMs: 0 }) });
      expect(await health()).toEqual({ W_up: 'ok', W_nohead: 'ok', W_gone: 'unreachable', W_off: 'ok' });
    } finally {
      await agent.close();
      await new Promise((r) => server.close(r));
    }
  });
});
