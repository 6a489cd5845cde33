/**
 * Serves the built front end: every page path answers the app's index.html (deep links work; a
 * page that needs a session redirects to /signin?next=… without one), hashed assets are immutable
 * and sent compressed (gzip or brotli, compressed once when the files are read). Every HTML answer
 * carries a strict Content-Security-Policy: scripts and styles from the portal's own origin only,
 * no inline code, no framing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import { ApiError } from '@cw/errors';
import { CONTENT_SECURITY_POLICY, htmlSecurityHeaders } from '@cw/http';
import { resolveSession } from '@cw/people';
import { sessionCookieName, type PortalDeps } from './portal-context';

/** Pages anyone may open. */
export const PUBLIC_PAGES = ['/signin', '/signup', '/verify-email', '/forgot-password', '/reset-password', '/invitations/accept', '/claim', '/unsubscribe'];
/** Pages of a signed-in person (DESIGN.md "People"; the front end answers its own "not found" for paths it does not know). */
export const MEMBER_PAGES = [
  '/dashboard',
  '/products',
  '/programs',
  '/links',
  '/conversions',
  '/clicks',
  '/payments',
  '/inquiries',
  '/settings',
  '/operations',
];
/** What nginx and the dev stack route to the portal besides `/portal/`, `/oauth/` and `/.well-known/`. */
export const PAGE_PREFIXES = [...PUBLIC_PAGES, ...MEMBER_PAGES, '/assets'];

// The strict policy and the HTML headers live in @cw/http (every service's HTML answers carry them);
// exported from here too, as the portal's OAuth pages and its index import them.
export { CONTENT_SECURITY_POLICY, htmlSecurityHeaders };

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

interface StaticFile {
  type: string;
  raw: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The built files, read and compressed once (the bundle is small: tens of files). */
export function loadWebFiles(dir: string): Map<string, StaticFile> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const files = new Map<string, StaticFile>();
  for (const path of walk(dir)) {
    const url = `/${relative(dir, path).split(sep).join('/')}`;
    if (url.startsWith('/.')) continue;
    const raw = readFileSync(path);
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    const compressible = /text|javascript|json|svg/.test(type) && raw.length > 512;
    files.set(url, { type, raw, ...(compressible ? { gzip: gzipSync(raw, { level: 9 }), br: brotliCompressSync(raw) } : {}) });
  }
  return files;
}

function send(ctx: Context, file: StaticFile): void {
  ctx.type = file.type;
  ctx.vary('Accept-Encoding');
  const accepts = ctx.get('Accept-Encoding');
  if (file.br && /\bbr\b/.test(accepts)) {
    ctx.set('Content-Encoding', 'br');
    ctx.body = file.br;
  } else if (file.gzip && /\bgzip\b/.test(accepts)) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = file.gzip;
  } else ctx.body = file.raw;
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** True when `/` is asked by a browser (HTML first): the portal; anything else keeps the API index. */
export const wantsHtml = (accept: string | undefined): boolean => /text\/html/.test(accept ?? '');

export function webPages(deps: PortalDeps, dir: string): Middleware {
  const files = loadWebFiles(dir);
  const https = deps.config.portalUrl.startsWith('https:');
  const cookie = sessionCookieName(deps.config.portalUrl);
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path;
    if (under(path, '/assets') || path === '/favicon.svg') {
      const file = files?.get(path);
      if (!file) return next();
      ctx.set('Cache-Control', under(path, '/assets') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
      ctx.set('X-Content-Type-Options', 'nosniff');
      return send(ctx, file);
    }
    const isPublic = PUBLIC_PAGES.some((p) => under(path, p));
    const isMember = path === '/' || MEMBER_PAGES.some((p) => under(path, p));
    if (!isPublic && !isMember) return next();
    const index = files?.get('/index.html');
    if (!index)
      throw new ApiError({
        code: 'service_unavailable',
        detail: "The portal's front end is not built: run `npx nx run portal:build-web` (npm start builds it).",
      });
    if (isMember && !(await resolveSession(deps, ctx.cookies.get(cookie, { signed: false })))) {
      ctx.set('Cache-Control', 'no-store');
      return ctx.redirect(`/signin?next=${encodeURIComponent(path === '/' ? '/dashboard' : ctx.url)}`);
    }
    if (path === '/') return ctx.redirect('/dashboard');
    htmlSecurityHeaders(ctx, https);
    send(ctx, index);
  };
}
