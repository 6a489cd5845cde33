/**
 * Bot flags for clicks: known automated user agents, a missing user agent, and rate (an address
 * over its per-minute budget, or clicking one link more than RATE_MAX times in RATE_WINDOW_MS).
 * Flagged clicks are stored and redirected like any other; reports leave them out by default.
 */
const BOT_UA =
  /bot\b|bot\/|crawl|spider|slurp|curl\/|wget\/|python-requests|python-urllib|aiohttp|httpclient|okhttp|go-http-client|java\/|libwww|headless|phantomjs|puppeteer|playwright|selenium|facebookexternalhit|whatsapp|preview|monitor|scanner|checker|axios\/|node-fetch|undici/i;

export type BotReason = 'user_agent' | 'no_user_agent' | 'rate';

export const RATE_WINDOW_MS = 60_000;
export const RATE_MAX = 10;

export function userAgentReason(ua: string): BotReason | undefined {
  if (!ua.trim()) return 'no_user_agent';
  return BOT_UA.test(ua) ? 'user_agent' : undefined;
}

/** Counts clicks per (address hash, link) in fixed windows; memory is pruned every window. */
export class ClickRateCounter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastPrune = Date.now();

  /** Counts this click; true when it is over the per-link rate. */
  hit(ipHash: string, link: string, now = Date.now()): boolean {
    if (now - this.lastPrune > RATE_WINDOW_MS) {
      for (const [k, w] of this.windows) if (now - w.start >= RATE_WINDOW_MS) this.windows.delete(k);
      this.lastPrune = now;
    }
    const key = `${ipHash}:${link}`;
    const w = this.windows.get(key);
    if (!w || now - w.start >= RATE_WINDOW_MS) {
      this.windows.set(key, { start: now, count: 1 });
      return false;
    }
    w.count += 1;
    return w.count > RATE_MAX;
  }
}
