import { useEffect, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { keys, signIn, unlockSignIn } from '../api/endpoints';
import { ErrorNotice, Notice } from '../components/feedback';
import { Form, SubmitButton, TextField, useFormState } from '../components/form';
import { Page } from '../components/page';
import { validateSignin } from '../generated/validators.js';
import { safeNext } from '../lib/next';

export function SignInPage() {
  const [params] = useSearchParams();
  const rawNext = params.get('next');
  const next = safeNext(rawNext);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const form = useFormState(validateSignin, { email: 'E-mail', password: 'Password' });
  const unlockToken = params.get('unlock');
  const unlock = useMutation({ mutationFn: unlockSignIn, onSuccess: (r) => setEmail(r.email) });
  const unlockStarted = useRef(false);
  useEffect(() => {
    // The link mailed when this address's sign-in was paused: this browser may sign in to it (once per link).
    if (unlockToken && !unlockStarted.current) {
      unlockStarted.current = true;
      unlock.mutate(unlockToken);
    }
  }, [unlockToken, unlock]);

  const mutation = useMutation({
    mutationFn: signIn,
    onSuccess: async (session) => {
      queryClient.clear();
      queryClient.setQueryData(keys.session, session);
      await navigate(next, { replace: true });
    },
    onError: (e) => {
      setPassword('');
      form.fail(e);
    },
  });

  const submit = () => {
    const body = { email: email.trim(), password };
    if (form.check(body)) mutation.mutate(body);
  };

  const carry = rawNext ? `?next=${encodeURIComponent(next)}` : '';
  return (
    <Page title="Sign in" description="Welcome back. Sign in to manage your publisher account.">
      {unlock.isSuccess ? (
        <Notice tone="success" title="Sign-in unlocked on this device" role="status">
          Enter the password of <strong>{unlock.data.email}</strong>. Other devices stay paused for a while.
        </Notice>
      ) : null}
      {unlock.isError ? <ErrorNotice error={unlock.error} title="This unlock link cannot be used" /> : null}
      <Form form={form} onSubmit={submit} pending={mutation.isPending}>
        <TextField form={form} name="email" type="email" autoComplete="username" inputMode="email" spellCheck={false} value={email} onChange={setEmail} />
        <TextField form={form} name="password" type="password" autoComplete="current-password" value={password} onChange={setPassword} />
        <SubmitButton pending={mutation.isPending} className="button button-primary button-block">
          Sign in
        </SubmitButton>
      </Form>
      <div className="auth-links">
        <p>
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
        <p>
          New to the network? <Link to={`/signup${carry}`}>Create an account</Link>
        </p>
      </div>
    </Page>
  );
}
