/**
 * The redirect's HTTP answer, one definition for the node route and the Koa route
 * (docs/decisions/0048-tracker-redirect-node-route.md): a 302 to the location, never cached, with
 * no body (0048's addendum: a redirect's reader follows Location; the spec's bodies are JSON). Its
 * own headers come as a flat list of names and values, which node's `writeHead` takes as it is.
 * nosniff as on every answer of every service (the node route is not Koa's stack): two constant
 * strings in the list it builds anyway, nothing more allocated per redirect.
 */
export function redirectHeaders(location: string): string[] {
  return ['Cache-Control', 'no-store', 'X-Content-Type-Options', 'nosniff', 'Location', location];
}
