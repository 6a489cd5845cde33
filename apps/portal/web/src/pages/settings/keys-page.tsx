/** Settings, Keys: every credential of the account; issue, rotate, revoke (the secret shown once). */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { credentialsQuery, issueCredential, keys, revokeCredential, rotateCredential } from '../../api/endpoints';
import type { Credential, IssuedCredential, KeyIssueInput } from '../../api/types';
import { useAnnounce } from '../../components/announcer';
import { useConfirm } from '../../components/dialog';
import { ErrorNotice, Loading, StatusPill, credentialTone, words } from '../../components/feedback';
import { Form, SelectField, SubmitButton, TextField, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { SecretPanel } from '../../components/secret';
import { validateKeyIssue } from '../../generated/validators.js';
import { useFormat } from '../../lib/format';
import { useAccount } from '../../session';
import { AccountGate } from '../account-gate';
import { actorName, CREDENTIAL_TYPES, inSentence, kindLabel, KEY_KINDS, typeLabel } from './credential-words';

const TITLE = 'Keys';
const DOC_TITLE = 'Keys · Settings';

export function KeysPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <Keys />
    </AccountGate>
  );
}

function Keys() {
  const account = useAccount();
  const list = useQuery(credentialsQuery(account.account_id));
  const [issued, setIssued] = useState<(IssuedCredential & { rotated: boolean }) | null>(null);
  const show = (r: IssuedCredential, rotated: boolean) => setIssued({ ...r, rotated });

  return (
    <Page
      title={TITLE}
      eyebrow="Settings"
      docTitle={DOC_TITLE}
      description="API keys, reporting tokens, offers credentials and portal API tokens of this account. Secrets are shown once; only their prefix is kept readable."
    >
      {issued && (
        <SecretPanel
          title={issued.rotated ? `New secret for ${issued.credential.prefix}` : `New ${inSentence(typeLabel(issued.credential.type))}`}
          secret={issued.secret}
          onDismiss={() => setIssued(null)}
        >
          {issued.rotated && <p>The previous secret stops working at its next request.</p>}
        </SecretPanel>
      )}
      {list.isPending ? (
        <Section title="Credentials">
          <Loading label="Loading credentials…" />
        </Section>
      ) : list.isError ? (
        // A role that may not see keys (analyst) is told so by the server, in its words.
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <>
          <CredentialTable accountId={account.account_id} rows={list.data.data} onRotated={(r) => show(r, true)} />
          <IssueForm accountId={account.account_id} onIssued={(r) => show(r, false)} />
        </>
      )}
    </Page>
  );
}

function CredentialTable({ accountId, rows, onRotated }: { accountId: string; rows: Credential[]; onRotated: (r: IssuedCredential) => void }) {
  const fmt = useFormat();
  const confirm = useConfirm();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.credentials(accountId) });
  const rotate = useMutation({
    mutationFn: (c: Credential) => rotateCredential(accountId, c.id),
    onSuccess: (r) => {
      onRotated(r);
      void refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (c: Credential) => revokeCredential(accountId, c.id),
    onSuccess: (_r, c) => {
      announce(`${c.prefix} revoked.`);
      void refresh();
    },
  });
  const busy = rotate.isPending || revoke.isPending;

  const askRotate = async (c: Credential) => {
    const ok = await confirm({
      title: `Rotate ${c.prefix}?`,
      body: 'A new secret is issued and shown once. The current secret stops working at its next request: update everything that uses it.',
      confirmLabel: 'Yes, rotate the key',
    });
    if (ok) rotate.mutate(c);
  };
  const askRevoke = async (c: Credential) => {
    const ok = await confirm({
      title: `Revoke ${c.prefix}?`,
      body: 'The key answers 401 from its next request on. This cannot be undone.',
      confirmLabel: 'Yes, revoke the key',
      danger: true,
    });
    if (ok) revoke.mutate(c);
  };

  return (
    <Section title="Credentials" description="Active first.">
      {rotate.isError && <ErrorNotice error={rotate.error} />}
      {revoke.isError && <ErrorNotice error={revoke.error} />}
      {rows.length === 0 ? (
        <p className="empty">No credentials yet. Issue one below.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of credentials" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Type</th>
                <th scope="col">Label</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => {
                const active = c.status === 'active';
                const kind = kindLabel(c.key_kind);
                return (
                  <tr key={c.id}>
                    <td>
                      <code className="mono">{c.prefix}</code>
                    </td>
                    <td>
                      {typeLabel(c.type)}
                      {kind && <span className="tag">{kind}</span>}
                    </td>
                    <td>{c.label || <span className="muted">—</span>}</td>
                    <td>
                      <span className="nowrap">{fmt.dateTime(c.created_at)}</span>
                      <p className="muted small">by {actorName(c.created_by)}</p>
                    </td>
                    <td className="nowrap">{c.last_used_at ? fmt.dateTime(c.last_used_at) : <span className="muted">never</span>}</td>
                    <td>
                      <StatusPill tone={credentialTone(c.status)}>{words(c.status)}</StatusPill>
                      {c.revoked_at && <p className="muted small nowrap">{fmt.dateTime(c.revoked_at)}</p>}
                    </td>
                    <td className="row-actions">
                      {active && (
                        <>
                          <button
                            type="button"
                            className="button button-secondary button-small"
                            aria-label={`Rotate ${c.prefix}`}
                            aria-disabled={busy || undefined}
                            onClick={() => !busy && void askRotate(c)}
                          >
                            Rotate
                          </button>
                          <button
                            type="button"
                            className="button button-danger-quiet button-small"
                            aria-label={`Revoke ${c.prefix}`}
                            aria-disabled={busy || undefined}
                            onClick={() => !busy && void askRevoke(c)}
                          >
                            Revoke
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

const LABELS = { type: 'Type', key_kind: 'Key kind', label: 'Label' };

function IssueForm({ accountId, onIssued }: { accountId: string; onIssued: (r: IssuedCredential) => void }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [type, setType] = useState('api_key');
  const [kind, setKind] = useState('live');
  const [label, setLabel] = useState('');
  const form = useFormState(validateKeyIssue, LABELS);
  const issue = useMutation({
    mutationFn: (input: KeyIssueInput) => issueCredential(accountId, input),
    onSuccess: (r) => {
      onIssued(r);
      setLabel('');
      announce('Key issued. Copy its secret now.');
      void queryClient.invalidateQueries({ queryKey: keys.credentials(accountId) });
    },
    onError: form.fail,
  });
  const submit = () => {
    const body = { type, ...(type === 'api_key' ? { key_kind: kind } : {}), ...(label.trim() ? { label: label.trim() } : {}) };
    if (form.check<KeyIssueInput>(body)) issue.mutate(body);
  };
  return (
    <Section title="Issue a credential" description="Live API keys act on real data; test and sandbox keys never pay; read-only keys cannot change anything.">
      <Form form={form} onSubmit={submit} pending={issue.isPending} className="form form-inline">
        <SelectField form={form} name="type" value={type} onChange={setType} options={CREDENTIAL_TYPES} />
        {type === 'api_key' && <SelectField form={form} name="key_kind" value={kind} onChange={setKind} options={KEY_KINDS} />}
        <TextField form={form} name="label" optional placeholder="e.g. Production server" value={label} onChange={setLabel} />
        <div className="form-actions">
          <SubmitButton pending={issue.isPending}>Issue key</SubmitButton>
        </div>
      </Form>
    </Section>
  );
}
