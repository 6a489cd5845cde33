/** Settings, Security: the account's security log, your sessions (end one, sign out everywhere), your password. */
import { useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { changePassword, endAllSessions, endSession, keys, securityLogQuery, sessionsQuery } from '../../api/endpoints';
import type { SecurityEvent } from '../../api/types';
import { useAnnounce } from '../../components/announcer';
import { useConfirm } from '../../components/dialog';
import { ErrorNotice, Loading, words } from '../../components/feedback';
import { Form, SubmitButton, TextField, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { validateChangePassword } from '../../generated/validators.js';
import { useFormat } from '../../lib/format';
import { describeUserAgent } from '../../lib/user-agent';
import { useSessionState } from '../../session';
import { addressOf, detailText } from './security-log';

const DOC_TITLE = 'Security · Settings';

export const EVENT_WORDS: Record<string, string> = {
  signin: 'Signed in',
  signin_failed: 'Sign-in failed',
  signout: 'Signed out',
  password_changed: 'Password changed',
  password_reset: 'Password reset',
  credential_issued: 'Credential issued',
  credential_rotated: 'Credential rotated',
  credential_revoked: 'Credential revoked',
  postback_changed: 'Postback changed',
  postback_secret_rotated: 'Postback secret rotated',
  member_invited: 'Member invited',
  member_joined: 'Member joined',
  member_role_changed: 'Member role changed',
  member_removed: 'Member removed',
  invitation_revoked: 'Invitation revoked',
  account_changed: 'Account changed',
  account_claimed: 'Account claimed',
  app_granted: 'App allowed',
  app_revoked: 'App revoked',
};

export function SecurityPage() {
  const { account } = useSessionState();
  return (
    <Page title="Security" eyebrow="Settings" docTitle={DOC_TITLE} description="What happened in this account, where you are signed in, and your password.">
      {account && <SecurityLog accountId={account.account_id} />}
      <Sessions />
      <ChangePassword />
    </Page>
  );
}

function SecurityLog({ accountId }: { accountId: string }) {
  const fmt = useFormat();
  const log = useInfiniteQuery(securityLogQuery(accountId));
  const rows: SecurityEvent[] = log.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Section title="Security log" description={`Newest first. Times in ${fmt.timeZone}.`}>
      {log.isPending ? (
        <Loading label="Loading the security log…" />
      ) : log.isError && !log.data ? (
        <ErrorNotice error={log.error} onRetry={() => void log.refetch()} />
      ) : rows.length === 0 ? (
        <p className="empty">Nothing recorded yet.</p>
      ) : (
        <>
          <div className="table-wrap" role="region" aria-label="Table of security events" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Who</th>
                  <th scope="col">When</th>
                  <th scope="col">Network</th>
                  <th scope="col">Device</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => {
                  const detail = detailText(e.detail);
                  return (
                    <tr key={e.id}>
                      <td>
                        <span className={e.type === 'signin_failed' ? 'strong warn-text' : 'strong'}>{EVENT_WORDS[e.type] ?? words(e.type)}</span>
                        {detail && <p className="muted small">{detail}</p>}
                      </td>
                      <td>{e.actor?.email ?? (e.actor?.credential ? <span className="mono">{e.actor.credential}</span> : <span className="muted">—</span>)}</td>
                      <td className="nowrap">{fmt.dateTime(e.at)}</td>
                      <td>
                        <span className="mono small">{addressOf(e) ?? '—'}</span>
                      </td>
                      <td>
                        {e.user_agent ? (
                          <details className="ua">
                            <summary>{describeUserAgent(e.user_agent)}</summary>
                            <p className="muted small">{e.user_agent}</p>
                          </details>
                        ) : (
                          describeUserAgent(null)
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {log.hasNextPage && (
            <div className="load-more">
              <button
                type="button"
                className="button button-secondary"
                onClick={() => !log.isFetchingNextPage && void log.fetchNextPage()}
                aria-disabled={log.isFetchingNextPage || undefined}
              >
                {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            </div>
          )}
          {log.isFetchNextPageError && <ErrorNotice error={log.error} onRetry={() => void log.fetchNextPage()} />}
        </>
      )}
    </Section>
  );
}

function Sessions() {
  const fmt = useFormat();
  const confirm = useConfirm();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const list = useQuery(sessionsQuery());
  const end = useMutation({
    mutationFn: endSession,
    onSuccess: () => {
      announce('Session ended.');
      void queryClient.invalidateQueries({ queryKey: keys.sessions });
    },
  });
  const endAll = useMutation({
    mutationFn: endAllSessions,
    onSuccess: async () => {
      await navigate('/signin', { replace: true });
      queryClient.clear();
    },
  });
  const askAll = async () => {
    const ok = await confirm({
      title: 'Sign out everywhere?',
      body: 'Every session of yours ends, this one too: you will sign in again here.',
      confirmLabel: 'Yes, sign out everywhere',
      danger: true,
    });
    if (ok) endAll.mutate();
  };
  return (
    <Section
      title="Your sessions"
      description="Where you are signed in. Addresses are shown as a hashed network prefix."
      actions={
        <button
          type="button"
          className="button button-danger-quiet"
          onClick={() => !endAll.isPending && void askAll()}
          aria-disabled={endAll.isPending || undefined}
        >
          Sign out everywhere
        </button>
      }
    >
      {endAll.isError && <ErrorNotice error={endAll.error} />}
      {end.isError && <ErrorNotice error={end.error} />}
      {list.isPending ? (
        <Loading label="Loading your sessions…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <ul className="session-list">
          {list.data.data.map((s) => (
            <li key={s.id} className="session-item">
              <div>
                <p className="strong">
                  {describeUserAgent(s.user_agent)}
                  {s.current && <span className="tag tag-accent">This device</span>}
                </p>
                <p className="muted small">
                  Last seen {fmt.dateTime(s.last_seen_at)} · signed in {fmt.dateTime(s.created_at)} · network <span className="mono">{s.address ?? '—'}</span>
                </p>
              </div>
              {!s.current && (
                <button
                  type="button"
                  className="button button-secondary button-small"
                  onClick={() => !end.isPending && end.mutate(s.id)}
                  aria-disabled={end.isPending || undefined}
                  aria-label={`End session on ${describeUserAgent(s.user_agent)}, last seen ${fmt.dateTime(s.last_seen_at)}`}
                >
                  End session
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

const PASSWORD_LABELS = { current_password: 'Current password', new_password: 'New password' };

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const form = useFormState(validateChangePassword, PASSWORD_LABELS);
  const change = useMutation({
    mutationFn: changePassword,
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setDone(true);
      announce('Password changed. Your other sessions were signed out.');
      void queryClient.invalidateQueries({ queryKey: keys.sessions });
    },
    onError: (e) => {
      setDone(false);
      form.fail(e);
    },
  });
  const submit = () => {
    const body = { current_password: current, new_password: next };
    setDone(false);
    if (form.check(body)) change.mutate(body);
  };
  return (
    <Section title="Change password" description="Changing it signs out your other sessions.">
      <Form form={form} onSubmit={submit} pending={change.isPending} className="form form-narrow">
        <TextField form={form} name="current_password" type="password" autoComplete="current-password" value={current} onChange={setCurrent} />
        <TextField
          form={form}
          name="new_password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters, not a common password, without your e-mail address or name."
          value={next}
          onChange={setNext}
        />
        <div className="form-actions">
          <SubmitButton pending={change.isPending}>Change password</SubmitButton>
          {done && <p className="saved">Password changed.</p>}
        </div>
      </Form>
    </Section>
  );
}
