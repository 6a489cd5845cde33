/**
 * The unsubscribe link of a notification mail (`/unsubscribe?t=…`), without signing in: opening it
 * changes nothing (mail scanners open links); the button turns that one kind of mail off.
 */
import { useEffect, useRef } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { previewUnsubscribe, unsubscribe } from '../api/notifications';
import { ErrorNotice, Loading, Notice } from '../components/feedback';
import { Page } from '../components/page';

export function UnsubscribePage() {
  const [params] = useSearchParams();
  const token = params.get('t') ?? '';
  const preview = useMutation({ mutationFn: previewUnsubscribe });
  const stop = useMutation({ mutationFn: unsubscribe });
  const started = useRef(false);
  useEffect(() => {
    if (token && !started.current) {
      started.current = true;
      preview.mutate(token);
    }
  }, [token, preview]);

  if (!token) {
    return (
      <Page title="Unsubscribe" docTitle="Unsubscribe">
        <ErrorNotice error={new Error('This link has no token. Open the link from the mail again (the whole address).')} title="The link is incomplete" />
        <p>
          You can also <Link to="/settings/notifications">sign in and change your notification settings</Link>.
        </p>
      </Page>
    );
  }
  if (stop.isSuccess) {
    return (
      <Page title="Unsubscribed" docTitle="Unsubscribed" focusOnMount>
        <Notice tone="success" title="Done" role="status">
          You will no longer get “{stop.data.label}” mail.
        </Notice>
        <p>
          Changed your mind? <Link to="/settings/notifications">Sign in and turn it on again</Link> in Settings, Notifications.
        </p>
      </Page>
    );
  }
  return (
    <Page title="Unsubscribe" docTitle="Unsubscribe">
      {preview.isError ? (
        <>
          <ErrorNotice error={preview.error} title="This link cannot be used" />
          <p>
            <Link to="/settings/notifications">Sign in and change your notification settings</Link> instead.
          </p>
        </>
      ) : preview.isSuccess ? (
        <>
          <p>
            Stop getting <strong>{preview.data.label}</strong> mail? {preview.data.description}
          </p>
          {stop.isError && <ErrorNotice error={stop.error} onRetry={() => stop.mutate(token)} />}
          <button
            type="button"
            className="button button-primary"
            onClick={() => !stop.isPending && stop.mutate(token)}
            aria-disabled={stop.isPending || undefined}
          >
            Turn off “{preview.data.label}” mail
            {stop.isPending && <span className="spinner" aria-hidden="true" />}
          </button>
        </>
      ) : (
        <Loading label="Reading the link…" lines={1} />
      )}
    </Page>
  );
}
