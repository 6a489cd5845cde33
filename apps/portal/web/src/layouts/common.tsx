/** What every layout shares: the skip link, focus on the h1 after navigation, the page-load bar. */
import { useEffect, useRef } from 'react';
import { useLocation, useNavigation } from 'react-router';

export function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#main"
      onClick={(e) => {
        e.preventDefault();
        document.getElementById('main')?.focus();
      }}
    >
      Skip to content
    </a>
  );
}

/** After each navigation (not the first load), focus moves to the new page's h1. */
export function FocusOnNavigate() {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    let tries = 0;
    let frame = 0;
    const focus = () => {
      const h1 = document.querySelector<HTMLElement>('main h1');
      if (h1) h1.focus();
      else if (tries++ < 20) frame = window.requestAnimationFrame(focus);
    };
    focus();
    return () => window.cancelAnimationFrame(frame);
  }, [pathname]);
  return null;
}

export function NavigationProgress() {
  const navigation = useNavigation();
  if (navigation.state === 'idle') return null;
  return (
    <div className="nav-progress" role="status">
      <span className="visually-hidden">Loading page…</span>
    </div>
  );
}

export function FullPageLoading({ label = 'Loading…' }: { label?: string }) {
  return (
    <main id="main" tabIndex={-1} className="full-page-status">
      <p role="status" className="muted">
        {label}
      </p>
    </main>
  );
}
