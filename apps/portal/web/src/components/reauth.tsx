/**
 * The password dialog for sensitive calls: the API client asks for it on a 403
 * reauthentication_required, POSTs /portal/api/reauth, and makes the call again once.
 */
import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { configureApi } from '../api/client';
import { keys, reauthenticate } from '../api/endpoints';
import { validateReauth } from '../generated/validators.js';
import { useAnnounce } from './announcer';
import { Dialog } from './dialog';
import { Form, SubmitButton, TextField, useFormState } from './form';

export function ReauthDialog() {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [pending, setPending] = useState(false);
  const waiting = useRef<{ promise: Promise<boolean>; resolve: (ok: boolean) => void } | null>(null);
  const form = useFormState(validateReauth, { password: 'Password' });
  const queryClient = useQueryClient();
  const announce = useAnnounce();

  useEffect(() => {
    configureApi({
      reauthenticate() {
        // Calls refused at the same moment share one dialog.
        if (!waiting.current) {
          let resolve: (ok: boolean) => void = () => undefined;
          const promise = new Promise<boolean>((r) => (resolve = r));
          waiting.current = { promise, resolve };
          setPassword('');
          form.clear();
          setOpen(true);
        }
        return waiting.current.promise;
      },
    });
    // Registered once (the handler reads refs and state setters only).
  }, []);

  const settle = (ok: boolean) => {
    const w = waiting.current;
    waiting.current = null;
    setOpen(false);
    setPassword('');
    w?.resolve(ok);
  };

  const submit = async () => {
    const body = { password };
    if (!form.check(body)) return;
    setPending(true);
    try {
      await reauthenticate(password);
      await queryClient.invalidateQueries({ queryKey: keys.session });
      announce('Password confirmed.');
      settle(true);
    } catch (e) {
      setPassword('');
      form.fail(e);
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog
      open={open}
      onClose={() => settle(false)}
      title="Confirm your password"
      description="This change needs your password again (asked at most every 10 minutes)."
    >
      <Form form={form} onSubmit={() => void submit()} pending={pending}>
        <TextField form={form} name="password" type="password" autoComplete="current-password" value={password} onChange={setPassword} autoFocus />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={() => settle(false)}>
            Cancel
          </button>
          <SubmitButton pending={pending}>Confirm</SubmitButton>
        </div>
      </Form>
    </Dialog>
  );
}
