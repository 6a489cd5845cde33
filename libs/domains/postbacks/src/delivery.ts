/**
 * One delivery attempt: the event as JSON (POST) or the macros in the URL (GET), signed,
 * sent with undici: 10 s budget, redirects not followed, the response body discarded, and the
 * address actually connected to checked again (a lookup that refuses non-public addresses, so a
 * name that re-resolves to a private address after the write-time check is still refused).
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { isForbiddenAddress } from '@cw/validation';
import { signatures } from './signing';
import type { Macro } from './target';
import type { FeedEventBody, SaleEventBody } from '@cw/events-feed';

export type { FeedEventBody, SaleEventBody };

export const DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'CW-Postbacks/1.0 (+https://standardwebhooks.com)';

export interface Attempt {
  ok: boolean;
  status?: number;
  error?: string;
  /** The exact request sent (URL and headers), for tests and logs without secrets. */
  url: string;
}

/** Every macro empty: what an event that is not a sale event (payout.paid…) fills, {event} aside. */
const NO_SALE: Record<Macro, string> = {
  subid: '',
  commission: '',
  currency: '',
  status: '',
  event: '',
  conversion_id: '',
  program_id: '',
  campaign_id: '',
  click_id: '',
};

/**
 * The URL with every macro replaced by the event's URL-encoded value. The macros are the sale's:
 * for another event (`payout.paid`, `payout.failed`) only {event} has a value (the type's last
 * part, `paid`), the others are empty (docs/postbacks.md).
 */
export function expandMacros(url: string, ev: FeedEventBody): string {
  const c = 'conversion' in ev ? (ev as SaleEventBody).conversion : undefined;
  const values: Record<Macro, string> = c
    ? {
        subid: c.subid ?? '',
        commission: c.commission,
        currency: c.currency,
        status: c.status,
        event: ev.event,
        conversion_id: c.id,
        program_id: c.program_id === null ? '' : String(c.program_id),
        campaign_id: c.campaign_id === null ? '' : String(c.campaign_id),
        click_id: c.click_id ?? '',
      }
    : { ...NO_SALE, event: typeof ev.event === 'string' ? ev.event : '' };
  return url.replace(/\{([a-z_]+)\}/g, (m, name: string) => (name in values ? encodeURIComponent(values[name as Macro]) : m));
}

/** A DNS lookup for sockets that refuses any non-public address it resolves to. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as Array<{ address: string; family: number }>;
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad || !list.length)
      return callback(Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), { code: 'EADDRNOTPUBLIC' }), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    const [first] = list as [(typeof list)[number]]; // not empty: checked above
    callback(null, first.address, first.family);
  });
};

export function createDeliveryAgent(opts: { allowInsecure: boolean; timeoutMs?: number }): Agent {
  const timeout = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Agent({
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connectTimeout: timeout,
    keepAliveTimeout: 4_000,
    connect: opts.allowInsecure ? {} : { lookup: publicOnlyLookup },
  });
}

export async function attemptDelivery(
  target: { url: string; method: 'GET' | 'POST'; secrets: string[] },
  ev: FeedEventBody,
  deliveryId: string,
  agent: Agent,
  opts: { allowInsecure: boolean; now?: Date; timeoutMs?: number },
): Promise<Attempt> {
  const timeout = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const url = expandMacros(target.url, ev);
  const timestamp = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const body = target.method === 'POST' ? JSON.stringify(ev) : undefined;
  const headers: Record<string, string> = {
    'User-Agent': USER_AGENT,
    'X-CW-Event': ev.type,
    'X-CW-Delivery': deliveryId,
    'X-CW-Timestamp': String(timestamp),
    'X-CW-Signature': signatures(target.secrets, deliveryId, timestamp, body ?? url),
    ...(body ? { 'Content-Type': 'application/json' } : {}),
  };
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    // Literal addresses never reach the lookup: check them here.
    if (!opts.allowInsecure && (parsed.protocol !== 'https:' || (isIP(host) && isForbiddenAddress(host))))
      return { ok: false, error: 'refused: the target is not an https URL on a public address', url };
    const res = await request(url, { method: target.method, headers, body, dispatcher: agent, signal: AbortSignal.timeout(timeout) });
    // Nothing of the answer is needed: discard it (bounded) so a huge body cannot stall us.
    await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return res.statusCode >= 200 && res.statusCode < 300
      ? { ok: true, status: res.statusCode, url }
      : { ok: false, status: res.statusCode, error: `HTTP ${res.statusCode}`, url };
  } catch (e) {
    const err = e as { name?: string; code?: string; message?: string };
    const reason =
      err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT'
        ? `timed out after ${timeout / 1000} s`
        : (err.message ?? String(e));
    return { ok: false, error: reason.slice(0, 300), url };
  }
}
