/**
 * The few HTML pages the provider renders itself (sign-out, signed out, an error it cannot send
 * back to the app): plain text, escaped, no script and no style, under the portal's security
 * headers (`pageHeaders`, the portal's own by default the strict set below).
 */
import type { Context } from 'koa';

/** Sets the security headers of an HTML page (the portal passes its own: CSP, framing, nosniff, Referrer-Policy). */
export type PageHeaders = (ctx: Context) => void;

/** Headers of a page when the mounting app gives none: nothing loads, nothing frames it, no Referer, never cached. */
export const strictPageHeaders: PageHeaders = (ctx) => {
  ctx.set('Content-Security-Policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
};

/**
 * Lets the page's form lead to `origin` (CSP `form-action` also governs the redirects after a
 * form's submission): the sign-out confirmation that sends the person back to an app.
 */
export function allowFormTarget(ctx: Context, origin: string): void {
  const csp = ctx.response.get('Content-Security-Policy');
  if (!csp || !/^https?:\/\/[^\s;,']+$/.test(origin)) return;
  ctx.set(
    'Content-Security-Policy',
    /form-action [^;]*/.test(csp) ? csp.replace(/form-action ([^;]*)/, `form-action $1 ${origin}`) : `${csp}; form-action 'self' ${origin}`,
  );
}

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main>${body}</main></body></html>`;
}

/** After signing out, or when there was nothing to sign out of: no redirect, nowhere else to go but the portal. */
export function signedOutPage(host: string): string {
  return page(
    'Signed out',
    `<h1>You are signed out</h1><p>You are signed out of the apps you connected with ${escapeHtml(host)}.</p>` +
      '<p>Access you allowed an app to keep when you are not using it stays until you revoke it in Settings, Apps.</p>' +
      '<p><a href="/dashboard">Go to the portal</a></p>',
  );
}

/**
 * The confirmation before signing out: the provider's form (its one-time token) and one button;
 * `backTo`: the app's address the person is sent to afterwards, said before they press it.
 */
export function signOutPage(host: string, form: string, backTo: string | undefined): string {
  return page(
    'Sign out',
    `<h1>Sign out?</h1><p>Sign out of the apps you connected with ${escapeHtml(host)}.</p>` +
      (backTo ? `<p>Afterwards you are sent back to the app at <strong>${escapeHtml(backTo)}</strong>.</p>` : '') +
      `${form}<p><button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button></p>` +
      '<p><a href="/dashboard">No, stay signed in</a></p>',
  );
}

/** An error the provider cannot send back to an app: the error and its description, escaped; nothing else of the request. */
export function errorPage(error: string, description: string): string {
  return page(
    'Connecting an app failed',
    `<h1>Connecting an app failed</h1><p><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p><p><a href="/dashboard">Go to the portal</a></p>`,
  );
}
