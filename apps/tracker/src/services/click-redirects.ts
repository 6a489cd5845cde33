/**
 * What following a tracked link does, shared by the Koa route and the node route (redirect.node-route.ts): the
 * redirect target (cached), the signed click id, and the click record (bot flags, per-address
 * counting) handed to the buffered recorder.
 */
import { clickRecord, ClickIds, ClickRateCounter, RedirectResolver, type RedirectTarget } from '@cw/links';
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

  constructor(
    deps: Pick<AppDeps, 'data' | 'config' | 'caches'>,
    readonly recorder: ClickRecorder,
  ) {
    this.resolver = new RedirectResolver(deps.data, deps.caches.redirectTargets);
    this.key = deps.config.secretKey;
    this.ids = new ClickIds(deps.config.keys);
  }

  /**
   * The click id of one redirect. GET records the click (buffered); HEAD is a link preview: its id
   * is signed as a preview, recorded nowhere, and converts nothing.
   */
  follow(target: RedirectTarget, method: string, reader: Reader): string {
    if (method === 'HEAD') return this.ids.next(target.linkId, { isBot: false, preview: true });
    const click = clickRecord(
      target,
      {
        userAgent: reader.userAgent,
        referrer: reader.referrer,
        ip: reader.ip,
        rates: this.rates,
        overIpLimit: reader.overIpLimit,
      },
      this.ids,
      this.key,
    );
    this.recorder.record(click);
    return click._id;
  }
}
