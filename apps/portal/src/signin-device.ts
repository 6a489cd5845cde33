/**
 * What the sign-in guard (@cw/people signin-guard.ts) needs from a request: the device cookie a
 * sign-in or an unlock link sets (`cw_device`, `__Host-cw_device` on https: httpOnly,
 * SameSite=Strict, its value a random id bound to the person by an HMAC), and the client's
 * address as the limits count it.
 */
import { isIP } from 'node:net';
import type { Context } from 'koa';
import type { DeviceCookie, RequestOrigin } from '@cw/people';
import { requestOrigin, type PortalDeps } from './portal-context';

export function deviceCookieName(portalUrl: string): string {
  return portalUrl.startsWith('https:') ? '__Host-cw_device' : 'cw_device';
}

export function setDeviceCookie(ctx: Context, deps: PortalDeps, device: DeviceCookie): void {
  ctx.cookies.set(deviceCookieName(deps.config.portalUrl), device.value, {
    httpOnly: true,
    // The value carries its own HMAC (bound to the person); a cookie signature would add nothing.
    signed: false,
    sameSite: 'strict',
    secure: deps.config.portalUrl.startsWith('https:'),
    path: '/',
    overwrite: true,
    expires: device.expires,
  });
}

/** An IPv4 address whole; an IPv6 address by its /64 (one subscriber commonly holds a whole /64). */
export function clientOf(ip: string): string {
  const bare = ip.split('%')[0] ?? '';
  if (bare.startsWith('::ffff:') && isIP(bare.slice(7)) === 4) return bare.slice(7);
  if (isIP(bare) !== 6) return bare || 'unknown';
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Where a sign-in or re-authentication comes from: the request's origin, the client as the limits count it, and the device cookie it carries. */
export function signinOrigin(ctx: Context, deps: PortalDeps): RequestOrigin {
  return { ...requestOrigin(ctx, deps), client: clientOf(ctx.ip || ''), device: ctx.cookies.get(deviceCookieName(deps.config.portalUrl), { signed: false }) };
}
