/** Where to go after signing in: only a path of this origin (never another site, never the API). */
export function safeNext(raw: string | null | undefined, fallback = '/dashboard'): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return fallback;
  try {
    const origin = window.location.origin;
    const url = new URL(raw, origin);
    if (url.origin !== origin) return fallback;
    if (url.pathname.startsWith('/portal/api') || url.pathname === '/signin') return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}

/** The sign-in page that brings the person back here afterwards. */
export const signInHref = (next: string) => `/signin?next=${encodeURIComponent(next)}`;

/** The `next` to keep across sign-up and the verification mail (opened maybe in another tab). */
const AFTER_VERIFY = 'portal.after_verify';

export function rememberNext(next: string | null): void {
  try {
    if (next) localStorage.setItem(AFTER_VERIFY, safeNext(next));
    else localStorage.removeItem(AFTER_VERIFY);
  } catch {
    // Storage refused (private mode): the person lands on the dashboard instead.
  }
}

export function rememberedNext(): string | null {
  try {
    return localStorage.getItem(AFTER_VERIFY);
  } catch {
    return null;
  }
}
