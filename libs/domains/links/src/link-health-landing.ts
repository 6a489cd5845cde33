/**
 * The landing check of link health (docs/decisions/0064-link-health.md), for links whose publisher
 * turned it on (`check_landing`): HEAD, then GET when HEAD fails or answers 4xx or 5xx (servers that refuse HEAD), each with
 * a timeout, redirects not followed (a 3xx answers: the page is there), the body never read. The
 * SSRF rules of postbacks: only http(s), never a literal non-public address, and the connection
 * made through the caller's dispatcher (the worker passes the postbacks' delivery agent, whose DNS
 * lookup refuses names resolving to non-public addresses). Politeness: at most one request per host
 * per second from this process, and at most `perHostPerPass` checks of one host in a pass (the
 * others are not checked this pass: their state stays as it was).
 */
import { isIP } from 'node:net';
import { request, type Dispatcher } from 'undici';
import { isForbiddenAddress } from '@cw/validation';
import type { HealthLinkRow } from './data/links.data';
import type { LandingProbe } from './link-health';

export const LANDING_TIMEOUT_MS = 5_000;
export const LANDING_HOST_INTERVAL_MS = 1_000;
export const LANDING_USER_AGENT = 'CW-LinkCheck/1.0';

export interface LandingCheckOptions {
  dispatcher: Dispatcher;
  /** Tests and the local platform: loopback and private addresses allowed (POSTBACK_ALLOW_INSECURE). */
  allowInsecure?: boolean;
  timeoutMs?: number;
  perHostPerPass?: number;
  /** The interval between two requests to one host (default a second). */
  hostIntervalMs?: number;
}

/** A landing probe for one pass: create one per pass (its per-host counts start at 0). */
export function landingProbe(opts: LandingCheckOptions): LandingProbe {
  const timeout = opts.timeoutMs ?? LANDING_TIMEOUT_MS;
  const interval = opts.hostIntervalMs ?? LANDING_HOST_INTERVAL_MS;
  const perHost = opts.perHostPerPass ?? 30;
  const next = new Map<string, number>();
  const checked = new Map<string, number>();
  const send = async (url: string, method: 'HEAD' | 'GET') => {
    const res = await request(url, {
      method,
      dispatcher: opts.dispatcher,
      headers: { 'User-Agent': LANDING_USER_AGENT, Accept: 'text/html,*/*' },
      signal: AbortSignal.timeout(timeout),
    });
    await res.body.dump({ limit: 16 * 1024 }).catch(() => undefined);
    return res.statusCode;
  };
  return {
    wants: (link: HealthLinkRow) => link.check_landing === true,
    async reachable(raw: string): Promise<boolean | undefined> {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return false;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
      const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      if (!opts.allowInsecure && isIP(host) && isForbiddenAddress(host)) return false;
      const n = checked.get(host) ?? 0;
      if (n >= perHost) return undefined;
      checked.set(host, n + 1);
      const wait = (next.get(host) ?? 0) - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      next.set(host, Date.now() + interval);
      try {
        if ((await send(url.toString(), 'HEAD')) < 400) return true;
      } catch {
        // Some servers drop HEAD: GET says.
      }
      await new Promise((r) => setTimeout(r, Math.max(0, (next.get(host) ?? 0) - Date.now())));
      next.set(host, Date.now() + interval);
      try {
        return (await send(url.toString(), 'GET')) < 400;
      } catch {
        return false;
      }
    },
  };
}
