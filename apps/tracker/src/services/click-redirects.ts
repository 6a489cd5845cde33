/**
 * What following a tracked link does, shared by the Koa route and the node route (redirect.node-route.ts): the
 * redirect target (cached), the route that answers a link with routes (the visitor's country from
 * the address, its device from the User-Agent: docs/decisions/0062-smart-link-routes.md), the
 * signed click id, and the click record (bot flags, a hosting network's address: docs/decisions/0067-datacenter-clicks.md,
 * per-address counting, the route) handed to the
 * buffered recorder. A dead product link (its target carries a fallback plan) answers from the
 * visitor's market: the same GTIN at another program (the click is that program's, and records
 * where it fell back from), the program's landing page, or the page that says so
 * (docs/decisions/0063-gtin-fallback.md).
 */
import {
  clickRecord,
  ClickIds,
  ClickRateCounter,
  CountryLookup,
  destination,
  deviceOf,
  LANDING,
  LinkFallback,
  matchRoute,
  NetworkLookup,
  readAsnFixture,
  readFixture,
  RedirectResolver,
  type RedirectTarget,
} from '@cw/links';

import type { ClickRecorder } from './click-recorder';
import type { TrackerDeps } from '../deps';

export interface Reader {
  userAgent: string;
  referrer: string;
  ip: string;
  /** Over the per-address budget (counted, never refused): a bot signal. */
  overIpLimit: boolean;
}

export class ClickRedirects {
  readonly resolver: RedirectResolver;
  private readonly ids: ClickIds;
  private readonly rates = new ClickRateCounter();
  private readonly key: Buffer;
  /** The visitor's country: asked only for links with routes. */
  readonly countries: CountryLookup;
  /** The visitor's network: hosting and data-centre addresses flag the click (`datacenter`). */
  readonly networks: NetworkLookup;
  /** Settles when the AS table is loaded (started with the tracker; until then only ASN_FIXTURE answers). */
  readonly networksLoaded: Promise<void>;
  readonly fallback: LinkFallback;

  constructor(
    deps: Pick<TrackerDeps, 'data' | 'config' | 'caches' | 'logger'>,
    readonly recorder: ClickRecorder,
  ) {
    this.fallback = new LinkFallback(deps.data, deps.config.secretKey);
    this.resolver = new RedirectResolver(deps.data, deps.caches.redirectTargets, this.fallback);
    this.key = deps.config.secretKey;
    this.ids = new ClickIds(deps.config.keys);
    this.countries = new CountryLookup({
      database: deps.config.geoipDatabase,
      fixture: deps.config.geoipFixture === undefined ? undefined : readFixture(deps.config.geoipFixture),
    });
    this.networks = new NetworkLookup({
      database: deps.config.asnDatabase,
      fixture: deps.config.asnFixture === undefined ? undefined : readAsnFixture(deps.config.asnFixture),
      hosting: deps.config.hostingAsns,
    });
    // Loaded in slices beside the traffic (readiness does not wait: about a second of CPU for the package's table).
    const started = Date.now();
    this.networksLoaded = this.networks.start().then(
      (table) => {
        if (table) deps.logger.info({ rows: table.size, ms: Date.now() - started }, 'AS table loaded: hosting networks flag clicks');
      },
      (err: unknown) =>
        deps.logger.error(
          { err: err instanceof Error ? err.message : String(err) },
          'AS table not loaded: no click is flagged datacenter (only ASN_FIXTURE answers)',
        ),
    );
  }

  /** The index of the link's route that answers this reader, else -1 (no routes, or none matches). */
  routeOf(target: RedirectTarget, reader: Pick<Reader, 'ip' | 'userAgent'>): number {
    return target.routes ? matchRoute(target.routes, this.countries.country(reader.ip), deviceOf(reader.userAgent)) : -1;
  }

  /** The visitor's market for a dead product link: the address's country, else the link's own market. */
  private marketOf(target: RedirectTarget, ip: string): string {
    return this.countries.country(ip) ?? target.fallback!.product.market;
  }

  /** Whether `follow` can answer this reader now (false: a dead product link's answer for its market is not found yet). */
  ready(target: RedirectTarget, ip: string, userAgent: string): boolean {
    if (!target.fallback || this.routeOf(target, { ip, userAgent }) >= 0) return true;
    const answer = LinkFallback.ready(target.fallback, this.marketOf(target, ip));
    return answer !== undefined && (answer.kind !== 'other' || answer.target !== undefined);
  }

  /** Finds (once per market and target) the fallback answer for this reader, so `follow` answers at once. */
  async prepare(target: RedirectTarget, reader: Pick<Reader, 'ip' | 'userAgent'>): Promise<void> {
    if (!target.fallback || this.routeOf(target, reader) >= 0) return;
    const market = this.marketOf(target, reader.ip);
    const answer = await this.fallback.answerFor(target.fallback, target, market);
    if (answer.kind !== 'other' || answer.target) return;
    // The program that answers: its target read now (as a click on that link would) and kept with the answer.
    const other = await this.resolver.resolve(answer.code);
    if (other) answer.target = other;
    // Its link just made is not found (links are never deleted: not expected): as if no program had it.
    else target.fallback.answers.set(market, target.landingAround ? { kind: 'landing' } : { kind: 'page' });
  }

  /**
   * Where one redirect goes: the landing URL of the route that answers (else the link's own) with
   * the click id. For a dead product link, the fallback's answer for the visitor's market: another
   * program's link (the click is that link's, recording where it fell back from), the program's
   * landing page, the link's own URL, or null: the page that says so (the click is still recorded,
   * on the link); undefined when the answer is not found yet (nothing recorded: `prepare`, then
   * follow again). GET records the click (buffered); HEAD is a link preview: its id is signed as
   * a preview, recorded nowhere, and converts nothing.
   */
  follow(target: RedirectTarget, method: string, reader: Reader): string | null | undefined {
    let route = this.routeOf(target, reader);
    let fallbackFrom: number | undefined;
    let dead = false;
    if (target.fallback && route < 0) {
      const answer = LinkFallback.ready(target.fallback, this.marketOf(target, reader.ip));
      // Not found yet, or (another program) its target not read yet: `prepare`.
      if (answer === undefined || (answer.kind === 'other' && !answer.target)) return undefined;
      if (answer.kind === 'other') {
        fallbackFrom = target.fallback.from;
        target = answer.target!;
      } else if (answer.kind === 'landing') route = LANDING;
      else if (answer.kind === 'page') dead = true;
    }
    if (method === 'HEAD') return dead ? null : destination(target, this.ids.next(target.linkId, { isBot: false, preview: true }), route);
    const click = clickRecord(
      target,
      {
        userAgent: reader.userAgent,
        referrer: reader.referrer,
        ip: reader.ip,
        rates: this.rates,
        overIpLimit: reader.overIpLimit,
        datacenter: this.networks.datacenter(reader.ip),
        route: route >= 0 ? route : -1,
        fallbackFrom,
      },
      this.ids,
      this.key,
    );
    this.recorder.record(click);
    return dead ? null : destination(target, click._id, route);
  }
}
