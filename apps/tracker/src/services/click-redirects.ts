/**
 * What following a tracked link does, shared by the Koa route and the node:http fast path: the
 * redirect target (cached), the click id, and the click record (bot flags, per-address counting)
 * handed to the buffered recorder.
 */
import { clickRecord, ClickIds, ClickRateCounter } from '@cw/links';
import type { AppDeps } from '@cw/runtime';
import type { ClickRecorder } from './click-recorder';
import { RedirectResolver, type RedirectTarget } from './redirects';

export interface Reader {
  userAgent: string;
  referrer: string;
  ip: string;
  /** Over the per-address budget (counted, never refused): a bot signal. */
  overIpLimit: boolean;
}

export class ClickRedirects {
  readonly resolver: RedirectResolver;
  readonly ids = new ClickIds();
  private readonly rates = new ClickRateCounter();
  private readonly key: Buffer;

  constructor(
    deps: Pick<AppDeps, 'repos' | 'config'>,
    readonly recorder: ClickRecorder,
  ) {
    this.resolver = new RedirectResolver(deps.repos);
    this.key = deps.config.secretKey;
  }

  /** Records the click of a followed link (GET only: HEAD is a link preview). */
  record(target: RedirectTarget, clickId: string, reader: Reader): void {
    this.recorder.record(
      clickRecord(
        target,
        {
          userAgent: reader.userAgent,
          referrer: reader.referrer,
          ip: reader.ip,
          overRate: (ipHash) => this.rates.hit(ipHash, target.linkId) || reader.overIpLimit,
        },
        clickId,
        this.key,
      ),
    );
  }
}
