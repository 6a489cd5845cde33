/**
 * Stored-script (XSS) probing of the portal's pages: the payloads, each calling `__xss(tag)` or
 * setting `__xssflag` so a run is told from a refusal; the watch installed in a browser context
 * before any page script (a payload that ran, a dialog, a CSP violation report, a console line of
 * the CSP); what a page holds that no page of the portal ever should (an `on*` attribute, a
 * `javascript:` URL, an inline script, a frame); and a session for the portal's API, as its pages
 * use it, to store the payloads.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** Markup, attribute-breaking, template and URL payloads for a text field (each at most 80 characters). */
export function textPayloads(tag: string): string[] {
  const run = `__xss('${tag}')`;
  return [
    `<script>${run}</script>`,
    `<img src=x onerror=${run}>`,
    `"><svg onload=${run}>`,
    `'><svg/onload=${run}>`,
    `" autofocus onfocus="${run}" x="`,
    `javascript:${run}//`,
    `\${${run}}`,
    `{{constructor.constructor("${run}")()}}`,
    `</title></textarea><script>${run}</script>`,
    `<a href="javascript:${run}">x</a>`,
    `<iframe srcdoc="<script>parent.${run}</script>">`,
  ].map((p) => p.slice(0, 80));
}

/** Payloads in URL fields (`host` where the field needs a reachable or public host). */
export function urlPayloads(tag: string, host = 'site.example'): string[] {
  const run = `__xss('${tag}')`;
  return [
    `javascript:${run}//https://${host}/`,
    `https://${host}/"><svg onload=${run}>`,
    `https://${host}/?q=<script>${run}</script>`,
    `https://${host}/#" onmouseover="${run}`,
    `https://${host}/'-${run}-'`,
    `data:text/html,<script>${run}</script>`,
  ];
}

/** Addresses an e-mail field accepts that break out of an attribute or a template (no parentheses allowed there). */
export function emailPayloads(tag: string): string[] {
  return [
    `\${globalThis.__xssflag='${tag}'}@invitee.example`,
    `'/onmouseover='globalThis.__xssflag=1'/@invitee.example`,
    `{{constructor}}${tag}@invitee.example`,
  ];
}

/** The few DOM members the page-side functions use (this code is type-checked without the DOM library). */
interface DomAttribute {
  name: string;
  value: string;
}
interface DomElement {
  tagName: string;
  attributes: ArrayLike<DomAttribute>;
  textContent: string | null;
  src?: string;
  value?: string;
}
export interface PageGlobals {
  document: {
    body: { innerText: string; insertAdjacentHTML(where: string, html: string): void };
    querySelectorAll(selector: string): ArrayLike<DomElement>;
    addEventListener(type: 'securitypolicyviolation', fn: (e: { violatedDirective: string; blockedURI: string; sample: string }) => void): void;
  };
  location: { origin: string };
  alert(message: string): void;
  __xssRan: string[];
  __xss: (t: unknown) => void;
  __csp: string[];
  __xssflag?: unknown;
}

/** What a context saw on its pages since `watch`: payloads run, dialogs opened, CSP reports. */
export interface Watch {
  dialogs: string[];
  cspConsole: string[];
  pageErrors: string[];
}

/** Installs the watch on a context, before any of its pages' scripts. */
export async function watch(context: BrowserContext): Promise<Watch> {
  const w: Watch = { dialogs: [], cspConsole: [], pageErrors: [] };
  await context.addInitScript(() => {
    const g = globalThis as unknown as PageGlobals;
    g.__xssRan = [];
    g.__xss = (t) => void g.__xssRan.push(String(t));
    g.__csp = [];
    g.document.addEventListener('securitypolicyviolation', (e) => g.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
  context.on('page', (page) => {
    page.on('dialog', (d) => {
      w.dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss().catch(() => undefined);
    });
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) w.cspConsole.push(m.text());
    });
    page.on('pageerror', (e) => w.pageErrors.push(e.message));
  });
  return w;
}

export interface PageFindings {
  /** Tags of the payloads that ran (`__xss`), or the flag an e-mail payload set. */
  ran: string[];
  /** The page's CSP violation reports (securitypolicyviolation events). */
  csp: string[];
  /** Elements no portal page should hold (an on* attribute, a javascript: or data:text/html URL, an inline script, a frame). */
  dom: string[];
  /** The page's text, with the values of its form fields (where stored values show in forms). */
  text: string;
}

/** What the page holds now. */
export async function inspect(page: Page): Promise<PageFindings> {
  return page.evaluate(() => {
    const g = globalThis as unknown as Partial<PageGlobals> & Pick<PageGlobals, 'document' | 'location'>;
    const dom: string[] = [];
    for (const el of Array.from(g.document.querySelectorAll('*'))) {
      for (const a of Array.from(el.attributes)) {
        if (/^on/i.test(a.name)) dom.push(`<${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 60)}">`);
        if (/^(href|src|action|formaction|xlink:href|data|poster|srcdoc)$/i.test(a.name) && /^\s*(javascript|vbscript|data:text\/html)/i.test(a.value))
          dom.push(`<${el.tagName.toLowerCase()} ${a.name}="${a.value.slice(0, 60)}">`);
        if (a.name === 'srcdoc') dom.push(`<${el.tagName.toLowerCase()} srcdoc>`);
      }
      if (el.tagName === 'SCRIPT' && !(el.src ?? '').startsWith(`${g.location.origin}/assets/`)) dom.push(`<script>${(el.textContent ?? '').slice(0, 60)}`);
      if (['IFRAME', 'FRAME', 'OBJECT', 'EMBED', 'BASE'].includes(el.tagName)) dom.push(`<${el.tagName.toLowerCase()}>`);
    }
    const values = Array.from(g.document.querySelectorAll('input, textarea, select')).map((e) => e.value ?? '');
    return {
      ran: [...(g.__xssRan ?? []), ...(g.__xssflag === undefined ? [] : [`flag ${String(g.__xssflag)}`])],
      csp: [...(g.__csp ?? [])],
      dom,
      text: `${g.document.body.innerText}\n${values.join('\n')}`,
    };
  });
}

/** A session of the portal's API, as its pages hold one (the cookie, the portal's Origin, the CSRF token). */
export interface ApiSession {
  userId: string;
  csrf: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

export async function apiSignIn(url: string, login: { email: string; password: string }, userAgent = 'stored-scripts probe'): Promise<ApiSession> {
  const res = await fetch(`${url}/portal/api/signin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: url, 'User-Agent': userAgent },
    body: JSON.stringify(login),
  });
  const body = (await res.json()) as { csrf_token: string; user: { id: string } };
  if (res.status !== 200) throw new Error(`sign-in of ${login.email}: ${res.status} ${JSON.stringify(body)}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => /^(__Host-)?cw_session=/.test(c))!;
  return {
    userId: body.user.id,
    csrf: body.csrf_token,
    async call(method, path, payload) {
      const r = await fetch(`${url}${path.startsWith('/') && !path.startsWith('/portal/') && !path.startsWith('/api/') ? `/portal/api${path}` : path}`, {
        method,
        headers: {
          Cookie: cookie,
          Origin: url,
          'X-CSRF-Token': body.csrf_token,
          'User-Agent': userAgent,
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: payload === undefined ? undefined : JSON.stringify(payload),
      });
      const text = await r.text();
      return { status: r.status, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
    },
  };
}
