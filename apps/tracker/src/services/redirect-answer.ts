/** The redirect's HTTP answer, one definition for the node route and the Koa route (docs/decisions/0048-tracker-redirect-node-route.md). */

/** Koa's ctx.accepts('html'): an Accept header naming text/html, text/*, or a wildcard, or none at all. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept === undefined || accept === '' || /text\/html|text\/\*|\*\/\*/.test(accept);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

/**
 * The 302's headers and body (as Koa's ctx.redirect words them: the location escaped for a reader
 * of HTML), the one definition both the node route and the Koa route answer with.
 */
export function redirectAnswer(location: string, accept: string | undefined): { headers: Record<string, string>; body: string } {
  const html = acceptsHtml(accept);
  return {
    headers: { 'Cache-Control': 'no-store', Location: location, 'Content-Type': html ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8' },
    body: `Redirecting to ${html ? escapeHtml(location) : location}.`,
  };
}
