/**
 * What following a tracked link does, shared by the Koa route and the node route (redirect.node-route.ts): the
 * redirect target (cached), the route that answers a link with routes (the visitor's country from
 * the address, its device from the User-Agent: docs/decisions/0062-smart-link-routes.md), the
 * signed click id, and the click record (bot flags, per-address counting, the route) handed to the
 * buffered recorder.
 */
import {
  clickRecord,
  ClickIds,
  ClickRateCounter,
  CountryLookup,
  destination,
  deviceOf,
  matchRoute,
  readFixture,
  RedirectResolver,
  type RedirectTarget,
} from '@cw/links';
import type { AppDeps } from '@cw/runtime';
import type { ClickRecorder } from './click-recorder';

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

  constructor(
    deps: Pick<AppDeps, 'data' | 'config' | 'caches'>,
    readonly recorder: ClickRecorder,
  ) {
    this.resolver = new RedirectResolver(deps.data, deps.caches.redirectTargets);
    this.key = deps.config.secretKey;
    this.ids = new ClickIds(deps.config.keys);
    this.countries = new CountryLookup({
      database: deps.config.geoipDatabase,
      fixture: deps.config.geoipFixture === undefined ? undefined : readFixture(deps.config.geoipFixture),
    });
  }

  /** The index of the link's route that answers this reader, else -1 (no routes, or none matches). */
  routeOf(target: RedirectTarget, reader: Pick<Reader, 'ip' | 'userAgent'>): number {
    return target.routes ? matchRoute(target.routes, this.countries.country(reader.ip), deviceOf(reader.userAgent)) : -1;
  }

  /**
   * Where one redirect goes: the landing URL of the route that answers (else the link's own) with
   * the click id. GET records the click (buffered); HEAD is a link preview: its id is signed as a
   * preview, recorded nowhere, and converts nothing.
   */
  follow(target: RedirectTarget, method: string, reader: Reader): string {
    const route = this.routeOf(target, reader);
    if (method === 'HEAD') return destination(target, this.ids.next(target.linkId, { isBot: false, preview: true }), route);
    const click = clickRecord(
      target,
      {
        userAgent: reader.userAgent,
        referrer: reader.referrer,
        ip: reader.ip,
        rates: this.rates,
        overIpLimit: reader.overIpLimit,
        route,
      },
      this.ids,
      this.key,
    );
    this.recorder.record(click);
    return destination(target, click._id, route);
  }
}
