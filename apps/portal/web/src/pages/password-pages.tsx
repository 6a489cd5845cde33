import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { forgotPassword, resetPassword } from '../api/endpoints';
import { Notice } from '../components/feedback';
import { Form, SubmitButton, TextField, useFormState } from '../components/form';
import { Page } from '../components/page';
import { validateForgotPassword, validateResetPassword } from '../generated/validators.js';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const form = useFormState(validateForgotPassword, { email: 'E-mail' });
  const mutation = useMutation({ mutationFn: forgotPassword, onError: form.fail });

  if (mutation.isSuccess) {
    return (
      <Page title="Check your mail" docTitle="Check your mail · Reset password" focusOnMount>
        <p>
          If an account uses <strong>{mutation.variables}</strong>, a link to choose a new password is on its way. It works once, for a limited time.
        </p>
        <p>
          <Link to="/signin">Back to sign in</Link>
        </p>
      </Page>
    );
  }
  const submit = () => {
    const body = { email: email.trim() };
    if (form.check(body)) mutation.mutate(body.email);
  };
  return (
    <Page
      title="Reset your password"
      docTitle="Forgot password"
      description="Give the address you sign in with; we will mail you a link to choose a new password."
    >
      <Form form={form} onSubmit={submit} pending={mutation.isPending}>
        <TextField form={form} name="email" type="email" autoComplete="email" inputMode="email" spellCheck={false} value={email} onChange={setEmail} />
        <SubmitButton pending={mutation.isPending} className="button button-primary button-block">
          Send reset link
        </SubmitButton>
      </Form>
      <div className="auth-links">
        <p>
          <Link to="/signin">Back to sign in</Link>
        </p>
      </div>
    </Page>
  );
}

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const form = useFormState(validateResetPassword, { password: 'New password', token: 'Link' });
  const mutation = useMutation({ mutationFn: resetPassword, onError: form.fail });

  if (!token) {
    return (
      <Page title="Choose a new password" docTitle="Reset password">
        <Notice tone="danger" title="The link is incomplete" role="alert">
          <p>This address has no token. Open the link from the mail again, or ask for a new one.</p>
        </Notice>
        <p>
          <Link to="/forgot-password">Get a new link</Link>
        </p>
      </Page>
    );
  }
  if (mutation.isSuccess) {
    return (
      <Page title="Password changed" focusOnMount>
        <p>Your new password is set. Every session was signed out, on every device: sign in again.</p>
        <Link to="/signin" className="button button-primary">
          Sign in
        </Link>
      </Page>
    );
  }
  const submit = () => {
    const body = { token, password };
    if (form.check(body)) mutation.mutate(body);
  };
  return (
    <Page title="Choose a new password" docTitle="Reset password">
      <Form form={form} onSubmit={submit} pending={mutation.isPending}>
        <TextField
          form={form}
          name="password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters, not a common password, without your e-mail address or name."
          value={password}
          onChange={setPassword}
        />
        <SubmitButton pending={mutation.isPending} className="button button-primary button-block">
          Set new password
        </SubmitButton>
      </Form>
      <div className="auth-links">
        <p>
          <Link to="/forgot-password">Get a new link</Link>
        </p>
      </div>
    </Page>
  );
}
