/**
 * Where a person acted from, as the security log and the sessions list keep and show it: a keyed
 * hash of the client's network (its /24 for IPv4, its /48 for IPv6; an IPv4 address mapped into
 * IPv6 counts as IPv4), written `net_` and 12 characters. One network always reads the same, so a
 * person recognises "the network I signed in from before"; neither the address nor its prefix is
 * stored or shown, and without the platform's secret key the label does not lead back to them.
 */
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';

const LABEL = /^net_[A-Za-z0-9_-]{12}$/;
/** The prefixes older versions stored in the clear (`198.51.100.0/24`, `2001:db8:1::/48`). */
const STORED_PREFIX = /^(?:\d{1,3}\.\d{1,3}\.\d{1,3}\.0\/24|[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,2}:*\/48)$/i;

/** The eight groups of an IPv6 address, as numbers (its zone dropped). */
function groupsOf(ip: string): number[] {
  const [head = '', tail] = ip.split('%')[0]!.toLowerCase().split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The client's network in the form older versions stored it (`a.b.c.0/24`, `x:y:z::/48`); undefined when `ip` is not an address. */
export function networkPrefix(ip: string): string | undefined {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)?.[1];
  const v4 = mapped ?? (isIP(ip) === 4 ? ip : undefined);
  if (v4) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIP(ip) !== 6) return undefined;
  return `${groupsOf(ip)
    .slice(0, 3)
    .map((g) => g.toString(16))
    .join(':')}::/48`;
}

const labelOf = (key: Buffer, prefix: string) => `net_${createHmac('sha256', key).update(`client-network/v1:${prefix}`).digest('base64url').slice(0, 12)}`;

/** The label of the network a client address is in (undefined: no address). */
export function clientNetwork(key: Buffer, ip: string): string | undefined {
  const prefix = networkPrefix(ip);
  return prefix ? labelOf(key, prefix) : undefined;
}

/**
 * A stored `address` as it is shown: a label as it is; a prefix an older version stored in the
 * clear, as the label of the same network (so an older entry and a new one from that network
 * read the same); anything else, nothing.
 */
export function shownNetwork(key: Buffer, stored: string | null | undefined): string | null {
  if (!stored) return null;
  if (LABEL.test(stored)) return stored;
  return STORED_PREFIX.test(stored) ? labelOf(key, stored.toLowerCase()) : null;
}
