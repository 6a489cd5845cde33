/** The signed-in pages: a sidebar (account switcher, navigation, sign out) and the page. */
import { useEffect, useId, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { isApiError } from '../api/client';
import { accountQuery, sessionQuery, signOut } from '../api/endpoints';
import type { Session } from '../api/types';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice } from '../components/feedback';
import { FormatContext, makeFormatters } from '../lib/format';
import { pickAccount, SessionContext, storeAccountId, storedAccountId, type SessionState } from '../session';
import { FullPageLoading, SkipLink } from './common';

export function AppLayout() {
  const session = useQuery(sessionQuery());
  if (session.isPending) return <FullPageLoading />;
  if (session.isError) {
    if (isApiError(session.error) && session.error.status === 401) return <FullPageLoading label="Taking you to sign in…" />;
    return (
      <main id="main" tabIndex={-1} className="full-page-status">
        <h1>Portal</h1>
        <ErrorNotice error={session.error} onRetry={() => void session.refetch()} />
      </main>
    );
  }
  return <SignedIn session={session.data} />;
}

const NAV = [
  { to: '/dashboard', label: 'Dashboard' },
  { to: '/conversions', label: 'Conversions' },
  { to: '/clicks', label: 'Clicks' },
  { to: '/links', label: 'Links' },
  { to: '/products', label: 'Products' },
  { to: '/programs', label: 'Programs' },
  { to: '/payments', label: 'Payments' },
  { to: '/inquiries', label: 'Missing sales' },
  { to: '/settings/postback', label: 'Postback', settings: true },
  { to: '/settings/keys', label: 'Keys', settings: true },
  { to: '/settings/apps', label: 'Apps', settings: true },
  { to: '/settings/team', label: 'Team', settings: true },
  { to: '/settings/security', label: 'Security', settings: true },
  { to: '/settings/payouts', label: 'Payouts', settings: true },
  { to: '/settings/tax', label: 'Tax', settings: true },
  { to: '/settings/notifications', label: 'Notifications', settings: true },
  { to: '/settings/account', label: 'Account', settings: true },
] as const;
const FIRST_SETTING = NAV.find((i) => 'settings' in i)?.to;

/** The operator area: listed only for a person with an operator role. */
const OPERATIONS_NAV = [
  { to: '/operations/review', label: 'Review queue' },
  { to: '/operations/claims', label: 'Claims' },
  { to: '/operations/keys', label: 'Publisher keys' },
  { to: '/operations/dead-letters', label: 'Dead letters' },
  { to: '/operations/programs', label: 'Merchants and programs' },
  { to: '/operations/payouts', label: 'Payouts' },
  { to: '/operations/inquiries', label: 'Missing sales' },
  { to: '/operations/audit', label: 'Audit log' },
] as const;

function SignedIn({ session }: { session: Session }) {
  const [wanted, setWanted] = useState(storedAccountId);
  const current = pickAccount(session.accounts, wanted);
  const account = useQuery({ ...accountQuery(current?.account_id ?? ''), enabled: !!current });
  const zone = account.data?.timezone ?? null;
  const formatters = useMemo(() => makeFormatters(zone), [zone]);
  const announce = useAnnounce();

  const state = useMemo<SessionState>(
    () => ({
      session,
      account: current,
      setAccountId(id) {
        storeAccountId(id);
        setWanted(id);
      },
    }),
    [session, current],
  );

  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setMenuOpen(false), [pathname]);

  const switcherId = useId();
  const panelId = useId();

  return (
    <SessionContext.Provider value={state}>
      <FormatContext.Provider value={formatters}>
        <div className="app-shell">
          <SkipLink />
          <header className="sidebar">
            <div className="sidebar-top">
              <span className="brand">
                <span className="brand-mark" aria-hidden="true" />
                Publisher portal
              </span>
              <button
                type="button"
                className="button button-ghost menu-toggle"
                aria-expanded={menuOpen}
                aria-controls={panelId}
                onClick={() => setMenuOpen((o) => !o)}
              >
                Menu
              </button>
            </div>
            <div id={panelId} className="sidebar-panel" data-open={menuOpen || undefined}>
              {session.accounts.length > 1 ? (
                <div className="account-switcher">
                  <label htmlFor={switcherId}>Account</label>
                  <select
                    id={switcherId}
                    value={current?.account_id ?? ''}
                    onChange={(e) => {
                      state.setAccountId(e.target.value);
                      const chosen = session.accounts.find((a) => a.account_id === e.target.value);
                      if (chosen) announce(`Now working in ${chosen.name}.`);
                    }}
                  >
                    {session.accounts.map((a) => (
                      <option key={a.account_id} value={a.account_id}>
                        {a.name}
                      </option>
                    ))}
                  </select>
                </div>
              ) : current ? (
                <div className="account-switcher">
                  <span className="label">Account</span>
                  <span className="account-name">{current.name}</span>
                </div>
              ) : null}
              <nav aria-label="Main">
                <ul className="nav-list">
                  {NAV.map((item) => (
                    <li key={item.to}>
                      {item.to === FIRST_SETTING && (
                        <span className="nav-group" aria-hidden="true">
                          Settings
                        </span>
                      )}
                      <NavLink to={item.to} className="nav-link">
                        {item.label}
                        {'settings' in item && <span className="visually-hidden"> settings</span>}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </nav>
              {session.operator && (
                <nav aria-label="Operations">
                  <span className="nav-group" aria-hidden="true">
                    Operations
                  </span>
                  <ul className="nav-list">
                    {OPERATIONS_NAV.map((item) => (
                      <li key={item.to}>
                        <NavLink to={item.to} className="nav-link">
                          {item.label}
                          <span className="visually-hidden"> (operations)</span>
                        </NavLink>
                      </li>
                    ))}
                  </ul>
                </nav>
              )}
              <UserBox email={session.user.email} role={current?.role} />
            </div>
          </header>
          <main id="main" tabIndex={-1} className="app-main">
            <Outlet />
          </main>
        </div>
      </FormatContext.Provider>
    </SessionContext.Provider>
  );
}

function UserBox({ email, role }: { email: string; role?: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const out = useMutation({
    mutationFn: signOut,
    onSettled: async () => {
      await navigate('/signin', { replace: true });
      queryClient.clear();
    },
  });
  return (
    <div className="user-box">
      <p className="user-email" title={email}>
        {email}
      </p>
      {role && <p className="muted small">Role: {role}</p>}
      <button type="button" className="button button-secondary button-small" onClick={() => out.mutate()} aria-disabled={out.isPending || undefined}>
        Sign out
      </button>
    </div>
  );
}
