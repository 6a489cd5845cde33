/**
 * The "Getting started" part of every API document's description (Markdown, shown first by the
 * reference pages): what the API is for, how to authenticate, a first request, then what holds
 * for every API of the platform (errors, rate limits, pages, money).
 */
export interface GettingStarted {
  /** One paragraph: what the API is for and who calls it. */
  intro: string;
  /** How a caller authenticates (or that it needs nothing). */
  authentication: string;
  /** A first request, as a shell command against the local platform. */
  firstRequest: string;
  /** Anything else this API's callers need to know, as Markdown paragraphs. */
  more?: string[];
}

const COMMON = `## Errors

Every error, of every API, has one shape: \`{"detail": "…", "code": "snake_case", "request_id": "req_…"}\`,
plus \`errors: [{param, detail}]\` naming each bad parameter on 400. Branch on \`code\`, never on
\`detail\`; quote \`request_id\` (also the \`X-Request-Id\` header) when you report a problem. A 401
never says whether the credential was missing, unknown or revoked.

## Rate limits

Every answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` (seconds) and
\`RateLimit-Policy\`; a 429 adds \`Retry-After\`. Budgets are per client address, then per account.

## Requests and answers

Paths work with and without their trailing slash. Unknown or repeated query parameters, and empty
values, are 400. Request targets are limited to 8 KiB (414) and headers to 16 KiB (431). Lists page
with \`page\` and \`page_size\` and answer \`has_more\` and \`next_page\`. Money is a decimal string with
its currency (\`"9.88"\`, \`"EUR"\`), never a float; times are ISO 8601 in UTC.`;

/** The description of an API document: its getting-started section, then the platform-wide rules. */
export function gettingStarted(g: GettingStarted): string {
  return [
    g.intro,
    '## Getting started',
    `**Authentication.** ${g.authentication}`,
    'On the local platform (`npm start`, http://127.0.0.1:8080) every credential is in `.local/credentials.json`; the index of every API reference is at `/docs`.',
    `**A first request:**\n\n\`\`\`sh\n${g.firstRequest}\n\`\`\``,
    ...(g.more ?? []),
    COMMON,
  ].join('\n\n');
}
