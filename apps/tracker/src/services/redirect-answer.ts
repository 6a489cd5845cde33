/**
 * The redirect's HTTP answer, one definition for the node route and the Koa route
 * (docs/decisions/0048-tracker-redirect-node-route.md): a 302 to the location, never cached, with
 * no body (the addendum of 0048: a redirect's reader follows Location; the spec's bodies are JSON).
 */

/** The 302's own headers as a flat list of names and values (node's `writeHead` takes it as it is). */
export function redirectHeaders(location: string): string[] {
  return ['Cache-Control', 'no-store', 'Location', location];
}
