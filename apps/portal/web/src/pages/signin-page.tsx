import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { keys, signIn } from '../api/endpoints';
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
