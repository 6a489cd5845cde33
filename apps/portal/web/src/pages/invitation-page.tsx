import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { acceptInvitation, invitationQuery, keys, optionalSessionQuery } from '../api/endpoints';
import type { Session } from '../api/types';
import { ErrorNotice, Loading, Notice } from '../components/feedback';
import { Form, SubmitButton, TextField, useFormState } from '../components/form';
import { Page } from '../components/page';
import { validateAcceptInvitation } from '../generated/validators.js';
import { useFormat } from '../lib/format';
import { signInHref } from '../lib/next';
import { storeAccountId } from '../session';

const TITLE = 'Join an account';

export function InvitationPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  if (!token) {
    return (
      <Page title={TITLE}>
        <Notice tone="danger" title="The link is incomplete" role="alert">
          <p>This address has no invitation token. Open the link from the invitation mail again.</p>
        </Notice>
      </Page>
    );
  }
  return <Invitation token={token} />;
}

function Invitation({ token }: { token: string }) {
  const fmt = useFormat();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const invitation = useQuery(invitationQuery(token));
  const session = useQuery(optionalSessionQuery());
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const form = useFormState(validateAcceptInvitation, { name: 'Your name', password: 'Password', token: 'Invitation' });

  const accept = useMutation({
    mutationFn: acceptInvitation,
    onSuccess: async (s: Session) => {
      const before = new Set((session.data?.accounts ?? []).map((a) => a.account_id));
      const joined = s?.joined?.account_id ?? s?.accounts?.find((a) => !before.has(a.account_id))?.account_id;
      if (joined) storeAccountId(joined);
      queryClient.clear();
      if (s?.user) queryClient.setQueryData(keys.session, s);
      await navigate('/dashboard', { replace: true });
    },
    onError: form.fail,
  });

  if (invitation.isPending || session.isPending) {
    return (
      <Page title={TITLE}>
        <Loading label="Loading the invitation…" />
      </Page>
    );
  }
  if (invitation.isError) {
    return (
      <Page title={TITLE}>
        <ErrorNotice error={invitation.error} title="This invitation cannot be used" onRetry={() => void invitation.refetch()} />
        <p className="muted">Invitations work once and expire. Ask the account’s owner to invite you again.</p>
      </Page>
    );
  }
  const inv = invitation.data;
  const here = `/invitations/accept?token=${encodeURIComponent(token)}`;
  const signedIn = session.data ?? null;

  const summary = (
    <dl className="summary-list">
      <div>
        <dt>Account</dt>
        <dd>{inv.account_name}</dd>
      </div>
      <div>
        <dt>Role</dt>
        <dd>{inv.role}</dd>
      </div>
      {inv.invited_by && (
        <div>
          <dt>Invited by</dt>
          <dd>{inv.invited_by}</dd>
        </div>
      )}
      <div>
        <dt>Invited address</dt>
        <dd>{inv.email}</dd>
      </div>
      <div>
        <dt>Expires</dt>
        <dd>{fmt.dateTime(inv.expires_at)}</dd>
      </div>
    </dl>
  );

  if (signedIn) {
    const other = signedIn.user.email.toLowerCase() !== inv.email.toLowerCase();
    return (
      <Page title={`Join ${inv.account_name}`} docTitle={TITLE} description={`You were invited as ${inv.role}.`}>
        {summary}
        {other && (
          <Notice tone="warning" title="Another address">
            <p>
              You are signed in as {signedIn.user.email}; the invitation was sent to {inv.email}.
            </p>
          </Notice>
        )}
        <Form form={form} onSubmit={() => accept.mutate({ token })} pending={accept.isPending}>
          <SubmitButton pending={accept.isPending} className="button button-primary button-block">
            Accept invitation
          </SubmitButton>
        </Form>
      </Page>
    );
  }

  const submit = () => {
    const body = { token, password, ...(name.trim() ? { name: name.trim() } : {}) };
    if (form.check(body)) accept.mutate(body);
  };
  return (
    <Page title={`Join ${inv.account_name}`} docTitle={TITLE} description={`You were invited as ${inv.role}. Already have an account? Sign in first.`}>
      {summary}
      <p>
        <Link to={signInHref(here)} className="button button-secondary button-block">
          Sign in to accept
        </Link>
      </p>
      <h2 className="section-title">New here? Create your sign-in</h2>
      <Form form={form} onSubmit={submit} pending={accept.isPending}>
        <div className="field">
          <span className="label">E-mail</span>
          <p className="static-value">{inv.email}</p>
        </div>
        <TextField form={form} name="name" optional autoComplete="name" value={name} onChange={setName} />
        <TextField
          form={form}
          name="password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters, not a common password, without your e-mail address or name."
          value={password}
          onChange={setPassword}
        />
        <SubmitButton pending={accept.isPending} className="button button-primary button-block">
          Accept invitation
        </SubmitButton>
      </Form>
    </Page>
  );
}
