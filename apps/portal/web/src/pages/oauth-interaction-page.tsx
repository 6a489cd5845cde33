/**
 * Connecting an app (OAuth): the sign-in and consent page at /oauth/interaction/:uid. The
 * provider sends the browser here; the page signs the person in (their portal session, or the
 * portal's sign-in form), then asks what the app may do: the app's name and where it sends you
 * back, each scope in words, the resource, the account it acts for (only what your role there
 * allows), Allow or Deny. Each step ends with the URL the page goes to (back to the provider).
 * The app's name is its own claim, shown as such and kept to one line of 100 characters; the
 * buttons stay in view however long the page is (styles/oauth.css).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { isApiError, setCsrfToken } from '../api/client';
import { reauthenticate } from '../api/endpoints';
import { interactionAbort, interactionConsent, interactionLogin, interactionQuery, type InteractionDetails } from '../api/oauth';
import { ErrorNotice, Loading, Notice } from '../components/feedback';
import { Form, SelectField, SubmitButton, TextField, useFormState } from '../components/form';
import { Page } from '../components/page';
import { validateReauth, validateSignin } from '../generated/validators.js';
import '../styles/oauth.css';

const NAME_MAX = 100;
// Control characters, line breaks and bidirectional controls (the platform's display-text rule).
// eslint-disable-next-line no-control-regex -- these are exactly what is dropped
const NOT_DISPLAY_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** The app's name as the page shows it, whatever the portal was given: one line, at most 100 characters. */
function appName(d: InteractionDetails): string {
  const line = (d.client.name ?? '').replace(/\s+/gu, ' ').replace(NOT_DISPLAY_TEXT, '').trim();
  const chars = [...line];
  if (!chars.length) return 'An unnamed app';
  return chars.length <= NAME_MAX
    ? line
    : `${chars
        .slice(0, NAME_MAX - 1)
        .join('')
        .trimEnd()}…`;
}
const LOOPBACK = /^(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?$/;

/** Leaves the page for the provider (which sends the browser on: another step, or back to the app). */
const go = (url: string) => window.location.assign(url);

export function OAuthInteractionPage() {
  return (
    <div className="oauth-interaction">
      <Interaction />
    </div>
  );
}

function Interaction() {
  const { uid = '' } = useParams();
  const details = useQuery(interactionQuery(uid));
  if (details.isPending)
    return (
      <Page title="Connecting an app" docTitle="Connect an app">
        <Loading label="Loading the app's request…" />
      </Page>
    );
  if (details.isError)
    return (
      <Page title="Connecting an app" docTitle="Connect an app">
        <ErrorNotice
          error={details.error}
          title={isApiError(details.error) && details.error.status === 404 ? 'This request has ended' : undefined}
          onRetry={() => void details.refetch()}
        />
      </Page>
    );
  const d = details.data;
  if (d.prompt === 'consent' && d.person_matches) return <Consent uid={uid} details={d} />;
  return <SignIn uid={uid} details={d} />;
}

/** Deny: the app hears access_denied. */
function DenyButton({ uid, csrf, label = 'Deny' }: { uid: string; csrf: string | null; label?: string }) {
  const deny = useMutation({ mutationFn: () => interactionAbort(uid, csrf), onSuccess: (r) => go(r.redirect_to) });
  return (
    <>
      {deny.isError && <ErrorNotice error={deny.error} />}
      <button type="button" className="button button-secondary" aria-disabled={deny.isPending || undefined} onClick={() => !deny.isPending && deny.mutate()}>
        {label}
      </button>
    </>
  );
}

function SignIn({ uid, details }: { uid: string; details: InteractionDetails }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [another, setAnother] = useState(false);
  const form = useFormState(validateSignin, { email: 'E-mail', password: 'Password' });
  const atConsent = details.prompt === 'consent';
  const login = useMutation({
    mutationFn: (input: { email: string; password: string } | Record<string, never>) => interactionLogin(uid, details.csrf_token, input),
    onSuccess: async (r) => {
      if (r.redirect_to) return go(r.redirect_to);
      // Signed in again at the consent step: read the request afresh.
      await queryClient.invalidateQueries({ queryKey: interactionQuery(uid).queryKey });
    },
    onError: (e) => {
      setPassword('');
      form.fail(e);
    },
  });

  // Signed in to the portal already (and not at consent as someone else): that session signs in for the app.
  const auto = !!details.signed_in && !atConsent && !another;
  const started = useRef(false);
  useEffect(() => {
    if (auto && !started.current) {
      started.current = true;
      login.mutate({});
    }
  }, [auto, login]);

  const name = appName(details);
  if (auto && !login.isError)
    return (
      <Page title={`Connect ${name}`} docTitle="Connect an app">
        <p role="status">Signing you in as {details.signed_in!.email}…</p>
      </Page>
    );

  const submit = () => {
    const body = { email: email.trim(), password };
    if (form.check(body)) login.mutate(body);
  };
  return (
    <Page
      title={`Connect ${name}`}
      docTitle="Connect an app"
      description={
        atConsent
          ? 'Sign in again as the person who started connecting this app.'
          : 'This app wants to act for your publisher account. Sign in to see what it asks for; nothing is shared before you allow it.'
      }
    >
      {details.signed_in && atConsent && (
        <Notice tone="warning">
          <p>You are signed in to the portal as {details.signed_in.email}, not as the person this app was connecting for.</p>
        </Notice>
      )}
      {auto && login.isError && <ErrorNotice error={login.error} />}
      <Form form={form} onSubmit={submit} pending={login.isPending}>
        <TextField form={form} name="email" type="email" autoComplete="username" inputMode="email" spellCheck={false} value={email} onChange={setEmail} />
        <TextField form={form} name="password" type="password" autoComplete="current-password" value={password} onChange={setPassword} />
        <div className="button-row consent-actions">
          <SubmitButton pending={login.isPending}>Sign in</SubmitButton>
          <DenyButton uid={uid} csrf={details.csrf_token} label="Cancel" />
        </div>
      </Form>
      {details.signed_in && !atConsent && !another && (
        <p>
          <button type="button" className="button button-ghost" onClick={() => setAnother(true)}>
            Use another account
          </button>
        </p>
      )}
    </Page>
  );
}

function Consent({ uid, details }: { uid: string; details: InteractionDetails }) {
  const accounts = useMemo(() => details.accounts ?? [], [details.accounts]);
  const [accountId, setAccountId] = useState(accounts[0]?.account_id ?? '');
  const account = accounts.find((a) => a.account_id === accountId) ?? null;
  const access = details.access ?? { resources: [], offline_access: null };
  const asked = useMemo(() => [...new Set(access.resources.flatMap((r) => r.scopes.map((s) => s.scope)))], [access.resources]);
  const words = useMemo(() => new Map(access.resources.flatMap((r) => r.scopes.map((s) => [s.scope, s.description] as const))), [access.resources]);
  const grantable = useMemo(() => new Set(account?.grantable_scopes ?? []), [account]);
  const [unchecked, setUnchecked] = useState<Set<string>>(new Set());
  const [password, setPassword] = useState('');
  const needsPassword = !!details.reauthentication_required;
  const form = useFormState(needsPassword ? validateReauth : null, { password: 'Password', scopes: 'What the app may do', account_id: 'Account' });

  const chosen = asked.filter((s) => grantable.has(s) && !unchecked.has(s));
  const offline = access.offline_access && !unchecked.has('offline_access') ? ['offline_access'] : [];

  const allow = useMutation({
    mutationFn: async () => {
      if (needsPassword) {
        // The portal's re-authentication (its CSRF token is the session's).
        setCsrfToken(details.csrf_token);
        await reauthenticate(password);
      }
      return interactionConsent(uid, details.csrf_token, { account_id: accountId, scopes: [...chosen, ...offline] });
    },
    onSuccess: (r) => go(r.redirect_to),
    onError: (e) => {
      setPassword('');
      form.fail(e);
    },
  });

  const name = appName(details);
  const host = details.client.redirect_host ?? details.client.redirect_uri;
  const toggle = (scope: string, on: boolean) =>
    setUnchecked((prev) => {
      const next = new Set(prev);
      if (on) next.delete(scope);
      else next.add(scope);
      return next;
    });

  if (!accounts.length)
    return (
      <Page title={`Allow ${name}?`} docTitle="Connect an app">
        <Notice tone="warning" title="No account to connect">
          <p>You are not a member of any publisher account, so there is nothing this app could act for.</p>
        </Notice>
        <div className="button-row">
          <DenyButton uid={uid} csrf={details.csrf_token} label="Back to the app" />
        </div>
      </Page>
    );

  const submit = () => {
    if (!chosen.length) {
      form.fail(new Error('Choose at least one thing the app may do, or deny.'));
      return;
    }
    if (needsPassword && !form.check({ password })) return;
    allow.mutate();
  };

  return (
    <Page
      title={`Allow ${name} to act for your account?`}
      docTitle="Connect an app"
      description={<>Signed in as {details.signed_in?.email}. The app acts only within what you allow here, until you revoke it in Settings, Apps.</>}
    >
      <dl className="summary-list compact">
        <div>
          <dt>App</dt>
          <dd>
            <bdi className="app-claim">{name}</bdi>
            <p className="muted small">The name the app gives itself: the portal does not check it. Allow only an app you are connecting yourself.</p>
          </dd>
        </div>
        <div>
          <dt>Sends you back to</dt>
          <dd>
            <code className="mono">{host}</code>
            {host && LOOPBACK.test(host) && <p className="muted small">An app running on this computer.</p>}
          </dd>
        </div>
        <div>
          <dt>For</dt>
          <dd>{access.resources.map((r) => r.label).join(', ')}</dd>
        </div>
      </dl>
      <Form form={form} onSubmit={submit} pending={allow.isPending}>
        {accounts.length > 1 ? (
          <SelectField
            form={form}
            name="account_id"
            label="Account"
            value={accountId}
            onChange={(v) => {
              setAccountId(v);
              setUnchecked(new Set());
            }}
            options={accounts.map((a) => ({ value: a.account_id, label: `${a.name} (${a.role})` }))}
          />
        ) : (
          <div className="field">
            <span className="label">Account</span>
            <p className="static-value">
              {account?.name} ({account?.role})
            </p>
          </div>
        )}
        <fieldset className="field choices">
          <legend>What the app may do</legend>
          <div className="choice-list">
            {asked.map((scope) => {
              const allowed = grantable.has(scope);
              return (
                <label key={scope} className="choice">
                  <input
                    type="checkbox"
                    name="scopes"
                    value={scope}
                    checked={allowed && !unchecked.has(scope)}
                    disabled={!allowed}
                    onChange={(e) => toggle(scope, e.target.checked)}
                  />
                  <span>
                    {words.get(scope) ?? scope} <code className="muted small">{scope}</code>
                    {!allowed && <span className="muted small"> (your role, {account?.role}, cannot allow this)</span>}
                  </span>
                </label>
              );
            })}
            {access.offline_access && (
              <label className="choice">
                <input
                  type="checkbox"
                  name="scopes"
                  value="offline_access"
                  checked={!unchecked.has('offline_access')}
                  onChange={(e) => toggle('offline_access', e.target.checked)}
                />
                <span>{access.offline_access.description}</span>
              </label>
            )}
          </div>
        </fieldset>
        {needsPassword && (
          <TextField
            form={form}
            name="password"
            type="password"
            autoComplete="current-password"
            hint="Allowing an app needs your password (asked at most every 10 minutes)."
            value={password}
            onChange={setPassword}
          />
        )}
        <div className="button-row consent-actions">
          <SubmitButton pending={allow.isPending}>Allow</SubmitButton>
          <DenyButton uid={uid} csrf={details.csrf_token} />
        </div>
      </Form>
    </Page>
  );
}
