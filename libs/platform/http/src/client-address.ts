import type { IncomingMessage } from 'node:http';

/**
 * The client's address: behind `hops` trusted proxies (TRUST_PROXY_HOPS) the X-Forwarded-For
 * entry that many from the right, else the peer's. The one definition: Koa apps set `ctx.ip` from
 * it (createServiceApp) and node routes call it.
 */
export function clientAddress(req: IncomingMessage, hops: number): string {
  if (hops > 0) {
    const xff = req.headers['x-forwarded-for'];
    const entries = (Array.isArray(xff) ? xff.join(',') : xff)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (entries?.length) return entries[Math.max(0, entries.length - hops)]!;
  }
  return req.socket.remoteAddress ?? '';
}
