/** The root route: providers every page shares, the reauthentication dialog, and errors of routing itself. */
import { Link, Outlet, useRouteError, isRouteErrorResponse } from 'react-router';
import { AnnouncerProvider } from './components/announcer';
import { ConfirmProvider } from './components/dialog';
import { ReauthDialog } from './components/reauth';
import { useDocumentTitle } from './components/page';
import { FocusOnNavigate, NavigationProgress } from './layouts/common';

export function Root() {
  return (
    <AnnouncerProvider>
      <ConfirmProvider>
        <FocusOnNavigate />
        <NavigationProgress />
        <Outlet />
        <ReauthDialog />
      </ConfirmProvider>
    </AnnouncerProvider>
  );
}

/** A page that failed to load or render (after a deployment, an old chunk is gone: reload). */
export function RouteError() {
  const error = useRouteError();
  useDocumentTitle('Something went wrong');
  const chunk = error instanceof Error && /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(error.message);
  const status = isRouteErrorResponse(error) ? error.status : null;
  return (
    <main id="main" tabIndex={-1} className="full-page-status">
      <div className="auth-card">
        <h1 tabIndex={-1}>{chunk ? 'The portal was updated' : 'Something went wrong'}</h1>
        <p>
          {chunk
            ? 'This page belongs to a newer version of the portal. Reload to get it.'
            : status
              ? `The page answered ${status}.`
              : 'The page could not be shown. Reloading usually helps; if it keeps happening, tell us what you were doing.'}
        </p>
        <div className="button-row">
          <button type="button" className="button button-primary" onClick={() => window.location.reload()}>
            Reload
          </button>
          <Link to="/dashboard" className="button button-secondary">
            Go to the dashboard
          </Link>
        </div>
      </div>
    </main>
  );
}
