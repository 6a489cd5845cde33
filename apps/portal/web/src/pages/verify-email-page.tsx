import { useEffect, useRef } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { verifyEmail } from '../api/endpoints';
import { ErrorNotice, Loading } from '../components/feedback';
import { Page } from '../components/page';
import { rememberedNext, signInHref } from '../lib/next';

export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const mutation = useMutation({ mutationFn: verifyEmail });
  const started = useRef(false);
  useEffect(() => {
    if (token && !started.current) {
      started.current = true;
      mutation.mutate(token);
    }
  }, [token, mutation]);

  const next = rememberedNext();
  const signIn = next ? signInHref(next) : '/signin';

  if (!token) {
    return (
      <Page title="Confirm your address" docTitle="Confirm your address">
        <ErrorNotice error={new Error('This link has no token. Open the link from the mail again (the whole address).')} title="The link is incomplete" />
        <p>
          <Link to="/signin">Sign in</Link> with an unconfirmed address to get a new link.
        </p>
      </Page>
    );
  }
  if (mutation.isSuccess) {
    return (
      <Page title="Address confirmed" focusOnMount>
        <p>
          <strong>{mutation.data.email}</strong> is confirmed. Sign in to continue.
        </p>
        <Link to={signIn} className="button button-primary">
          Sign in
        </Link>
      </Page>
    );
  }
  return (
    <Page title="Confirm your address">
      {mutation.isError ? (
        <>
          <ErrorNotice error={mutation.error} title="This link cannot be used" onRetry={() => mutation.mutate(token)} />
          <p>
            Links work once and for a limited time. <Link to={signIn}>Sign in</Link> with your address and password to get a new one.
          </p>
        </>
      ) : (
        <Loading label="Confirming your address…" lines={1} />
      )}
    </Page>
  );
}
