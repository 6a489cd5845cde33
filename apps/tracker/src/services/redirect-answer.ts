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

const DEAD_END_TEXT: Record<string, string> = {
  out_of_stock: 'The product this link points to is out of stock at the shop',
  not_served: 'The shop no longer offers the product this link points to',
  program_paused: 'The shop this link points to does not take visitors from this link at the moment',
  program_ended: 'The shop this link points to no longer takes visitors from this link',
  not_approved: 'The shop this link points to no longer takes visitors from this link',
};

/**
 * The page a dead product link answers when nothing can take the visit (docs/decisions/0063-gtin-fallback.md):
 * 404, HTML, saying why in plain words; nothing is remembered about the visitor beyond the click.
 */
export function deadEndPage(reason: string): { status: 404; headers: string[]; body: string } {
  const why = DEAD_END_TEXT[reason] ?? DEAD_END_TEXT.not_served!;
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>Product not available</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5">
<h1>This product is not available</h1>
<p>${why}, and no other shop has the same product in stock for your country. There is nowhere to send you, so this page is the end of the link.</p>
<p>You can go back to the page you came from.</p>
</body></html>
`;
  return {
    status: 404,
    headers: [
      'Cache-Control',
      'no-store',
      'X-Content-Type-Options',
      'nosniff',
      'Content-Type',
      'text/html; charset=utf-8',
      'Content-Length',
      String(Buffer.byteLength(body)),
    ],
    body,
  };
}
