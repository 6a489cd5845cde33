import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { signUp } from '../api/endpoints';
import { Form, SubmitButton, TextField, useFormState } from '../components/form';
import { Page } from '../components/page';
import { validateSignup } from '../generated/validators.js';
import { rememberNext, safeNext } from '../lib/next';

const LABELS = { email: 'E-mail', password: 'Password', account_name: 'Account name', name: 'Your name', website: 'Website' };

export function SignUpPage() {
  const [params] = useSearchParams();
  const rawNext = params.get('next');
  // Signing up to claim an instant-monetization application: the claimed account is theirs, no other is made.
  const claiming = !!rawNext && safeNext(rawNext).startsWith('/claim');
  const [v, setV] = useState({ email: '', password: '', account_name: '', name: '', website: '' });
  const set = (k: keyof typeof v) => (value: string) => setV((o) => ({ ...o, [k]: value }));
  const form = useFormState(validateSignup, LABELS);
  const mutation = useMutation({ mutationFn: signUp, onSuccess: () => rememberNext(rawNext ? safeNext(rawNext) : null), onError: form.fail });

  if (mutation.isSuccess) {
    return (
      <Page title="Check your mail" docTitle="Check your mail · Sign up" focusOnMount>
        <p>
          We sent a link to <strong>{mutation.variables.email}</strong>. Open it to confirm your address, then sign in.
        </p>
        <p className="muted">No mail after a few minutes? Look in the spam folder, or sign in: an unconfirmed address gets a new link.</p>
        <p>
          <Link to="/signin">Go to sign in</Link>
        </p>
      </Page>
    );
  }

  const submit = () => {
    const body = {
      email: v.email.trim(),
      password: v.password,
      ...(claiming ? {} : { account_name: v.account_name.trim() }),
      ...(v.name.trim() ? { name: v.name.trim() } : {}),
      ...(v.website.trim() ? { website: v.website.trim() } : {}),
    };
    if (form.check(body)) mutation.mutate(body);
  };

  return (
    <Page
      title={claiming ? 'Create your sign-in' : 'Create your account'}
      docTitle="Sign up"
      description={
        claiming
          ? 'Then claim your instant-monetization account: its links, clicks and earnings become yours once the network approves it.'
          : 'Publish links to the network’s programs and earn commission. New accounts are reviewed before payouts.'
      }
    >
      <Form form={form} onSubmit={submit} pending={mutation.isPending}>
        <TextField form={form} name="email" type="email" autoComplete="email" inputMode="email" spellCheck={false} value={v.email} onChange={set('email')} />
        <TextField
          form={form}
          name="password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters, not a common password, without your e-mail address or name. A passphrase is easiest."
          value={v.password}
          onChange={set('password')}
        />
        {claiming ? null : (
          <TextField
            form={form}
            name="account_name"
            hint="Your site, brand or company."
            autoComplete="organization"
            value={v.account_name}
            onChange={set('account_name')}
          />
        )}
        <TextField form={form} name="name" optional autoComplete="name" value={v.name} onChange={set('name')} />
        <TextField
          form={form}
          name="website"
          optional
          type="url"
          inputMode="url"
          placeholder="https://"
          hint="Where you publish (http or https)."
          value={v.website}
          onChange={set('website')}
        />
        <SubmitButton pending={mutation.isPending} className="button button-primary button-block">
          Create account
        </SubmitButton>
      </Form>
      <div className="auth-links">
        <p>
          Already have an account? <Link to={rawNext ? `/signin?next=${encodeURIComponent(safeNext(rawNext))}` : '/signin'}>Sign in</Link>
        </p>
      </div>
    </Page>
  );
}
