/** Settings, Postback: the URL with its macros and a live preview, events, the signing secret, test, deliveries. */
import { useId, useRef, useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { deliveriesQuery, keys, postbackQuery, putPostback, redeliver, rotatePostbackSecret, sendTestPostback } from '../../api/endpoints';
import {
  DELIVERY_STATUSES,
  OPT_IN_EVENT_TYPES,
  SALE_EVENT_TYPES,
  type Delivery,
  type PostbackConfig,
  type PostbackInput,
  type TestDelivery,
} from '../../api/types';
import { useAnnounce } from '../../components/announcer';
import { useConfirm } from '../../components/dialog';
import { ErrorNotice, Loading, Notice, StatusPill, deliveryTone, words } from '../../components/feedback';
import { ChoiceGroup, Form, SubmitButton, TextField, Toggle, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { SecretPanel } from '../../components/secret';
import { validatePostback } from '../../generated/validators.js';
import { useFormat } from '../../lib/format';
import { MACROS, SAMPLE_SALE, insertAt, previewUrl } from '../../lib/macros';
import { useAccount } from '../../session';
import { AccountGate } from '../account-gate';

const TITLE = 'Postback';
const DOC_TITLE = 'Postback · Settings';

export function PostbackPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <Postback />
    </AccountGate>
  );
}

function Postback() {
  const account = useAccount();
  const config = useQuery(postbackQuery(account.account_id));
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);

  return (
    <Page
      title={TITLE}
      eyebrow="Settings"
      docTitle={DOC_TITLE}
      description="Each sale event is sent to your server as it happens, signed with your secret, and retried until your server answers 2xx."
    >
      {secret && (
        <SecretPanel title={secret.rotated ? 'New signing secret' : 'Your signing secret'} secret={secret.value} onDismiss={() => setSecret(null)}>
          <p>
            {secret.rotated
              ? 'Deliveries are signed with this secret from now on; the previous one keeps verifying for 24 hours, so update your server within a day.'
              : 'Verify the signature of every delivery with it (Standard Webhooks).'}
          </p>
        </SecretPanel>
      )}
      {config.isPending ? (
        <Section title="Configuration">
          <Loading label="Loading the postback…" />
        </Section>
      ) : config.isError ? (
        <Section title="Configuration">
          <ErrorNotice error={config.error} onRetry={() => void config.refetch()} />
        </Section>
      ) : (
        <>
          <ConfigForm key={account.account_id} accountId={account.account_id} config={config.data} onSecret={(value) => setSecret({ value, rotated: false })} />
          {config.data.configured && (
            <SigningSecret accountId={account.account_id} config={config.data} onSecret={(value) => setSecret({ value, rotated: true })} />
          )}
          {config.data.configured && <TestEvent accountId={account.account_id} />}
        </>
      )}
      <Deliveries accountId={account.account_id} />
    </Page>
  );
}

const LABELS = { url: 'Postback URL', http_method: 'Method', event_types: 'Events', active: 'Active' };

function ConfigForm({ accountId, config, onSecret }: { accountId: string; config: PostbackConfig; onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const fmt = useFormat();
  const [url, setUrl] = useState(config.url ?? '');
  const [method, setMethod] = useState<'GET' | 'POST'>(config.http_method ?? 'POST');
  const [events, setEvents] = useState<string[]>(config.configured ? config.event_types : [...SALE_EVENT_TYPES]);
  const [active, setActive] = useState(config.configured ? config.active : true);
  const [saved, setSaved] = useState<string | null>(null);
  const urlRef = useRef<HTMLInputElement>(null);
  const form = useFormState(validatePostback, LABELS);
  const previewId = useId();

  const save = useMutation({
    mutationFn: (input: PostbackInput) => putPostback(accountId, input),
    onSuccess: (answer) => {
      if (answer.secret) onSecret(answer.secret);
      const { secret: _secret, ...view } = answer;
      queryClient.setQueryData(keys.postback(accountId), view);
      const message = answer.secret ? 'Postback created.' : 'Postback saved.';
      setSaved(message);
      announce(message);
    },
    onError: (e) => {
      setSaved(null);
      form.fail(e);
    },
  });

  const insert = (macro: string) => {
    const input = urlRef.current;
    const r = insertAt(url, `{${macro}}`, input?.selectionStart ?? null, input?.selectionEnd ?? null);
    setUrl(r.value);
    window.requestAnimationFrame(() => {
      input?.focus();
      input?.setSelectionRange(r.caret, r.caret);
    });
  };

  const preview = previewUrl(url.trim());
  const submit = () => {
    const body = { url: url.trim(), http_method: method, event_types: events, active };
    setSaved(null);
    if (form.check<PostbackInput>(body)) save.mutate(body);
  };

  return (
    <Section
      title="Configuration"
      description={
        config.configured ? <>Last changed {fmt.dateTime(config.updated_at)}.</> : 'No postback yet: saving creates it and shows its signing secret once.'
      }
      actions={
        config.configured ? <StatusPill tone={config.active ? 'success' : 'neutral'}>{config.active ? 'Active' : 'Paused by you'}</StatusPill> : undefined
      }
    >
      {config.paused_until && (
        <Notice tone="warning" title="Deliveries are paused">
          <p>
            After {config.consecutive_failures} failures in a row, deliveries wait until {fmt.dateTime(config.paused_until)} (then one probe decides). Saving
            the configuration resumes them now.
          </p>
        </Notice>
      )}
      <Form form={form} onSubmit={submit} pending={save.isPending}>
        <TextField
          form={form}
          name="url"
          inputRef={urlRef}
          type="text"
          inputMode="url"
          spellCheck={false}
          autoComplete="off"
          placeholder="https://example.com/postback?subid={subid}&amount={commission}"
          hint="An https address. Macros in braces are replaced for each event."
          value={url}
          onChange={setUrl}
          aria-controls={previewId}
        />
        <div className="macro-bar" role="group" aria-label="Insert a macro into the URL">
          {MACROS.map((m) => (
            <button key={m} type="button" className="chip" onClick={() => insert(m)} aria-label={`Insert {${m}}`}>
              {`{${m}}`}
            </button>
          ))}
        </div>
        <div className="preview" id={previewId}>
          <p className="preview-label">Preview: what a sample approved sale would call</p>
          {url.trim() ? (
            <code className="preview-url">
              {method} {preview.url}
            </code>
          ) : (
            <p className="muted small">Type a URL to see it with sample values.</p>
          )}
          {preview.unknown.length > 0 && (
            <p className="field-error">
              Unknown {preview.unknown.length === 1 ? 'macro' : 'macros'}: {preview.unknown.map((u) => `{${u}}`).join(' ')}. Use the buttons above for the known
              ones.
            </p>
          )}
          <details className="sample-values">
            <summary>Sample values</summary>
            <dl className="summary-list compact">
              {MACROS.map((m) => (
                <div key={m}>
                  <dt className="mono">{`{${m}}`}</dt>
                  <dd className="mono">{SAMPLE_SALE[m]}</dd>
                </div>
              ))}
            </dl>
          </details>
        </div>
        <ChoiceGroup
          form={form}
          name="http_method"
          type="radio"
          hint="POST sends the signed JSON event as the body; GET sends only the URL."
          options={[
            { value: 'POST', label: 'POST' },
            { value: 'GET', label: 'GET' },
          ]}
          values={[method]}
          onChange={(v) => setMethod(v[0] === 'GET' ? 'GET' : 'POST')}
        />
        <ChoiceGroup
          form={form}
          name="event_types"
          type="checkbox"
          options={[...SALE_EVENT_TYPES, ...OPT_IN_EVENT_TYPES].map((e) => ({ value: e, label: e }))}
          values={events}
          onChange={setEvents}
        />
        <Toggle
          form={form}
          name="active"
          label="Active: send postbacks"
          hint="Turned off, events are not sent (nothing is queued for later)."
          checked={active}
          onChange={setActive}
        />
        <div className="form-actions">
          <SubmitButton pending={save.isPending}>Save postback</SubmitButton>
          {saved && <p className="saved">{saved}</p>}
        </div>
      </Form>
    </Section>
  );
}

function SigningSecret({ accountId, config, onSecret }: { accountId: string; config: PostbackConfig; onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const fmt = useFormat();
  const rotate = useMutation({
    mutationFn: () => rotatePostbackSecret(accountId),
    onSuccess: (answer) => {
      if (answer.secret) onSecret(answer.secret);
      void queryClient.invalidateQueries({ queryKey: keys.postback(accountId) });
    },
  });
  const ask = async () => {
    const ok = await confirm({
      title: 'Rotate the signing secret?',
      body: 'A new secret signs every delivery from now on. The previous one keeps verifying for 24 hours, so your server can switch without losing events.',
      confirmLabel: 'Yes, rotate the secret',
    });
    if (ok) rotate.mutate();
  };
  return (
    <Section
      title="Signing secret"
      description="Each delivery carries a signature (webhook-signature) made with this secret."
      actions={
        <button type="button" className="button button-secondary" onClick={() => !rotate.isPending && void ask()} aria-disabled={rotate.isPending || undefined}>
          Rotate secret
        </button>
      }
    >
      <dl className="summary-list">
        <div>
          <dt>Current secret</dt>
          <dd className="mono">{config.secret_prefix ?? '—'}</dd>
        </div>
        {config.previous_secret_valid_until && (
          <div>
            <dt>Previous secret verifies until</dt>
            <dd>{fmt.dateTime(config.previous_secret_valid_until)}</dd>
          </div>
        )}
      </dl>
      {rotate.isError && <ErrorNotice error={rotate.error} />}
    </Section>
  );
}

function TestEvent({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const test = useMutation({
    mutationFn: () => sendTestPostback(accountId),
    onSuccess: (d) => {
      announce(`Test event ${d.status ?? 'sent'}.`);
      void queryClient.invalidateQueries({ queryKey: keys.deliveries(accountId) });
    },
  });
  return (
    <Section
      title="Test"
      description="Sends a signed test event (shaped like sale.created, marked test) to your URL now and shows what your server answered."
      actions={
        <button type="button" className="button button-secondary" onClick={() => !test.isPending && test.mutate()} aria-disabled={test.isPending || undefined}>
          Send test event
          {test.isPending && <span className="spinner" aria-hidden="true" />}
        </button>
      }
    >
      {test.isPending && <p role="status">Sending the test event…</p>}
      {test.isError && <ErrorNotice error={test.error} onRetry={() => test.mutate()} />}
      {test.isSuccess && <TestResult delivery={test.data} />}
    </Section>
  );
}

function TestResult({ delivery }: { delivery: TestDelivery }) {
  const fmt = useFormat();
  const ok = delivery.status === 'succeeded';
  return (
    <div className={`test-result ${ok ? 'test-ok' : 'test-failed'}`}>
      <p>
        <StatusPill tone={deliveryTone(delivery.status ?? '')}>{words(delivery.status ?? 'sent')}</StatusPill>{' '}
        {ok
          ? 'Your server accepted the test event.'
          : delivery.status === 'pending'
            ? 'No answer yet: it will be retried.'
            : 'Your server did not accept the test event.'}
      </p>
      <dl className="summary-list compact">
        <div>
          <dt>Delivery</dt>
          <dd className="mono">{delivery.delivery_id}</dd>
        </div>
        <div>
          <dt>Status code</dt>
          <dd>{delivery.last_response_status ?? '—'}</dd>
        </div>
        {delivery.last_duration_ms != null && (
          <div>
            <dt>Duration</dt>
            <dd>{fmt.number(delivery.last_duration_ms)} ms</dd>
          </div>
        )}
        {delivery.last_error && (
          <div>
            <dt>Error</dt>
            <dd>{delivery.last_error}</dd>
          </div>
        )}
        {delivery.next_attempt_at && (
          <div>
            <dt>Next retry</dt>
            <dd>{fmt.dateTime(delivery.next_attempt_at)}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}

function Deliveries({ accountId }: { accountId: string }) {
  const [status, setStatus] = useState('');
  const filterId = useId();
  const fmt = useFormat();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const list = useInfiniteQuery(deliveriesQuery(accountId, status));
  const again = useMutation({
    mutationFn: (id: string) => redeliver(accountId, id),
    onSuccess: () => {
      announce('Delivery queued again.');
      void queryClient.invalidateQueries({ queryKey: keys.deliveries(accountId) });
    },
  });
  const rows: Delivery[] = list.data?.pages.flatMap((p) => p.data) ?? [];
  const withDuration = rows.some((r) => r.last_duration_ms != null);

  return (
    <Section
      title="Deliveries"
      description="Every delivery of the last 30 days, newest first."
      actions={
        <div className="inline-field">
          <label htmlFor={filterId}>Status</label>
          <select id={filterId} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">All</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {words(s)}
              </option>
            ))}
          </select>
        </div>
      }
    >
      {again.isError && <ErrorNotice error={again.error} />}
      {list.isPending ? (
        <Loading label="Loading deliveries…" />
      ) : list.isError && !list.data ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <p className="empty">{status ? `No ${status} deliveries.` : 'No deliveries yet. Send a test event to see one here.'}</p>
      ) : (
        <>
          <div className="table-wrap" role="region" aria-label="Table of deliveries" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status code</th>
                  {withDuration && <th scope="col">Duration</th>}
                  <th scope="col">Attempts</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Next retry</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <StatusPill tone={deliveryTone(d.status)}>{words(d.status)}</StatusPill>
                    </td>
                    <td>
                      <span className="mono">{d.event}</span>
                      {d.test && <span className="tag">test</span>}
                      {d.last_error && <p className="muted small">{d.last_error}</p>}
                    </td>
                    <td>{d.last_response_status ?? '—'}</td>
                    {withDuration && <td>{d.last_duration_ms != null ? `${fmt.number(d.last_duration_ms)} ms` : '—'}</td>}
                    <td>{d.attempts}</td>
                    <td>{fmt.dateTime(d.last_attempt_at)}</td>
                    <td>{d.paused_until ? `Paused until ${fmt.dateTime(d.paused_until)}` : fmt.dateTime(d.next_attempt_at)}</td>
                    <td>
                      {(d.status === 'failed' || d.status === 'dead') && (
                        <button
                          type="button"
                          className="button button-secondary button-small"
                          onClick={() => !again.isPending && again.mutate(d.id)}
                          aria-disabled={again.isPending || undefined}
                          aria-label={`Redeliver ${d.event} ${d.id}`}
                        >
                          Redeliver
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.isFetchNextPageError && <ErrorNotice error={list.error} onRetry={() => void list.fetchNextPage()} />}
          {list.hasNextPage && (
            <div className="load-more">
              <button
                type="button"
                className="button button-secondary"
                onClick={() => !list.isFetchingNextPage && void list.fetchNextPage()}
                aria-disabled={list.isFetchingNextPage || undefined}
              >
                {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            </div>
          )}
        </>
      )}
    </Section>
  );
}
