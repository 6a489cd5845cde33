/**
 * Bot flags for clicks: automated user agents by a maintained list (`isbot`, pinned: its pattern
 * follows the crawlers, HTTP clients and monitors in the wild), agents fetching a page for a
 * person (`agent`: flagged, and listed apart by GET /clicks/?bot_reason=agent), a missing user
 * agent, an address in a hosting network (`datacenter`, judged by the tracker), and rate (an address over its per-minute budget, or clicking one link more than RATE_MAX
 * times in RATE_WINDOW_MS). Flagged clicks are stored and redirected like any other; reports leave
 * them out by default. docs/decisions/0062-smart-link-routes.md.
 */
import { isbot } from 'isbot';

/**
 * Agents that fetch a page because a person asked them to (an assistant opening a link in a
 * conversation), by the names their operators publish; checked before the bot list, which also
 * matches most of them. Kept here because no maintained list tells them from crawlers.
 */
const PERSON_AGENT = /ChatGPT-User|Perplexity-User|Claude-User|MistralAI-User|Meta-ExternalFetcher|Google-Read-Aloud|Google-NotebookLM/i;

/**
 * Why a click is flagged. `datacenter`: the address is in a hosting or data-centre network
 * (visitor-network.ts, docs/decisions/0067-datacenter-clicks.md).
 */
export type BotReason = 'user_agent' | 'no_user_agent' | 'rate' | 'agent' | 'datacenter';

export const BOT_REASONS: readonly BotReason[] = ['user_agent', 'no_user_agent', 'rate', 'agent', 'datacenter'];

export const RATE_WINDOW_MS = 60_000;
export const RATE_MAX = 10;

export function userAgentReason(ua: string): BotReason | undefined {
  if (!ua.trim()) return 'no_user_agent';
  if (PERSON_AGENT.test(ua)) return 'agent';
  return isbot(ua) ? 'user_agent' : undefined;
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
