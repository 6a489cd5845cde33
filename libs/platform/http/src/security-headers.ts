/**
 * The headers that keep a browser from misreading or misusing an answer. Every answer of every
 * service is `X-Content-Type-Options: nosniff` (a JSON error or a CSV export is never run as a
 * script or rendered as HTML); every HTML answer also carries a Content-Security-Policy, frame
 * protection and `Referrer-Policy: no-referrer` (`htmlSecurityHeaders`). A page that needs more
 * than the strict policy (the Redoc reference: its bundle's inline styles and search worker) sets
 * its own; any HTML answer that set none gets the strict one, so no page goes out without.
 */
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';

/** The strict policy: scripts, styles and everything else from the page's own origin only, no inline code, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A CSP source naming one inline script or style by its SHA-256 (CSP level 2). */
export const inlineSource = (content: string): string => `'sha256-${createHash('sha256').update(content).digest('base64')}'`;

/**
 * The headers of an HTML answer: `csp` (the strict policy by default), frame protection, nosniff,
 * no Referer (pages may carry one-time tokens in their URLs), a window of its own, no powerful
 * features, HSTS on https, and never cached.
 */
export function htmlSecurityHeaders(ctx: Context, https: boolean, csp: string = CONTENT_SECURITY_POLICY): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (https) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  ctx.set('Cache-Control', 'no-store');
}

/**
 * The service stack's outermost header middleware: nosniff set before anything runs (so errors,
 * 404s, redirects and streamed answers written straight to the socket carry it too), and the
 * strict HTML headers on an HTML answer that did not set its own (`htmlSecurityHeaders`).
 *
 * A browser's navigation (Accept names text/html) gets the strict policy before the handler runs:
 * a handler that renders an inline script adds its hash to the policy it finds (oidc-provider's
 * form_post page does), which it could not do to one set afterwards. An answer that turns out not
 * to be HTML (a redirect, JSON) goes without it.
 */
export async function securityHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  const navigation = (ctx.get('Accept') ?? '').includes('text/html');
  if (navigation) ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  await next();
  if (ctx.headerSent) return;
  if (!ctx.response.is('html')) {
    if (navigation && ctx.response.get('Content-Security-Policy') === CONTENT_SECURITY_POLICY) ctx.remove('Content-Security-Policy');
    return;
  }
  // A page that set its headers set frame protection with them; otherwise the strict set, keeping
  // the policy it has (the strict one, perhaps with its inline script's hash added) or the strict one.
  if (!ctx.response.get('X-Frame-Options')) htmlSecurityHeaders(ctx, ctx.secure, ctx.response.get('Content-Security-Policy') || CONTENT_SECURITY_POLICY);
}
