/** Pages before (or around) signing in: a centred card. */
import { Link, Outlet } from 'react-router';
import { SkipLink } from './common';

export function AuthLayout() {
  return (
    <div className="auth-shell">
      <SkipLink />
      <header className="auth-header">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Publisher portal
        </Link>
      </header>
      <main id="main" tabIndex={-1} className="auth-main">
        <div className="auth-card">
          <Outlet />
        </div>
      </main>
    </div>
  );
}
