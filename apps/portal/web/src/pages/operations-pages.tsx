/**
 * Operations: the network's operators' area (same sign-in; shown only to a person with an operator
 * role). Review queue, instant-monetization claims, a publisher's keys, postback dead letters and
 * the audit log, each act through the operator use cases (support reads, admin acts; audited).
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import {
  auditQuery,
  claimsQuery,
  credentialsQuery,
  deliveriesQuery,
  publishersQuery,
  redeliver,
  reviewClaim,
  reviewPublisher,
  revokeCredential,
  type AuditEntry,
  type AuditFilters,
} from '../api/operator';
import { useAnnounce } from '../components/announcer';
import { useConfirm } from '../components/dialog';
import { credentialTone, deliveryTone, ErrorNotice, Loading, Notice, StatusPill, words } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { useSessionState } from '../session';

const EYEBROW = 'Operations';

/** The operator's role, or null (the pages then say so instead of calling anything). */
function useOperatorRole(): 'support' | 'admin' | null {
  return useSessionState().session.operator?.role ?? null;
}

/** Renders the page for operators; anyone else sees why there is nothing here. */
export function OperatorOnly({ title, children }: { title: string; children: ReactNode }) {
  const role = useOperatorRole();
  if (!role)
    return (
      <Page
        title="You are not an operator"
        docTitle={`${title} · Operations`}
        description="This page is part of the operator area, for the people who run the network. Your sign-in does not carry an operator role."
      >
        <p>If you should have access, ask an admin operator to grant you a role.</p>
        <div className="button-row">
          <Link to="/dashboard" className="button button-primary">
            Go to the dashboard
          </Link>
        </div>
      </Page>
    );
  return <>{children}</>;
}

function RoleNote() {
  const role = useOperatorRole();
  if (role !== 'support') return null;
  return (
    <Notice tone="info" title="You are a support operator">
      <p>You can read everything here; approving, rejecting, revoking and redelivering need an admin operator.</p>
    </Notice>
  );
}

/** The outcome of the last act on a page: what was done, or why it was refused. */
function ActOutcome({ done, error }: { done: string | null; error: unknown }) {
  if (error) return <ErrorNotice error={error} />;
  if (done)
    return (
      <Notice tone="success" role="status">
        <p>{done}</p>
      </Notice>
    );
  return null;
}

function useAct<A>(run: (a: A) => Promise<string>, invalidate: readonly unknown[]) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [done, setDone] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: run,
    onMutate: () => setDone(null),
    onSuccess: async (message) => {
      setDone(message);
      announce(message);
      await queryClient.invalidateQueries({ queryKey: invalidate });
    },
  });
  return { act: m.mutate, pending: m.isPending, done, error: m.error };
}

// Review queue

export function ReviewQueuePage() {
  return (
    <OperatorOnly title="Review queue">
      <Page
        title="Review queue"
        eyebrow={EYEBROW}
        docTitle="Review queue · Operations"
        description="Publisher accounts signed up in the portal, waiting for review. Newest first."
      >
        <RoleNote />
        <ReviewQueue />
      </Page>
    </OperatorOnly>
  );
}

function ReviewQueue() {
  const fmt = useFormat();
  const confirm = useConfirm();
  const list = useQuery(publishersQuery('pending'));
  const { act, pending, done, error } = useAct(
    async ({ id, name, decision }: { id: string; name: string; decision: 'approve' | 'reject' }) => {
      const r = await reviewPublisher(id, decision);
      return `${name} (${r.account_id}) is now ${r.status}.`;
    },
    ['operator', 'publishers'],
  );
  return (
    <Section title="Pending review">
      <ActOutcome done={done} error={error} />
      {list.isPending ? (
        <Loading label="Loading the accounts pending review…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">No account is waiting for review.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of accounts pending review" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Website</th>
                <th scope="col">Signed up</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((p) => (
                <tr key={p.account_id} data-account={p.account_id}>
                  <td>
                    <span className="strong">{p.name}</span>
                    <p className="muted small mono">{p.account_id}</p>
                  </td>
                  <td>{p.website ?? <span className="muted">—</span>}</td>
                  <td className="nowrap">{fmt.dateTime(p.created_at)}</td>
                  <td>
                    <div className="button-row">
                      <button
                        type="button"
                        className="button button-primary button-small"
                        aria-disabled={pending || undefined}
                        onClick={() => !pending && act({ id: p.account_id, name: p.name, decision: 'approve' })}
                      >
                        Approve<span className="visually-hidden"> {p.name}</span>
                      </button>
                      <button
                        type="button"
                        className="button button-danger button-small"
                        aria-disabled={pending || undefined}
                        onClick={() =>
                          void (async () => {
                            if (pending) return;
                            const ok = await confirm({
                              title: `Reject ${p.name}?`,
                              body: 'The account becomes inactive: its people cannot issue keys or earn. This is recorded in the audit log.',
                              confirmLabel: 'Yes, reject the account',
                              danger: true,
                            });
                            if (ok) act({ id: p.account_id, name: p.name, decision: 'reject' });
                          })()
                        }
                      >
                        Reject<span className="visually-hidden"> {p.name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

// Claims

export function ClaimsPage() {
  return (
    <OperatorOnly title="Claims">
      <Page
        title="Claims"
        eyebrow={EYEBROW}
        docTitle="Claims · Operations"
        description="Instant-monetization applications claimed by their creators, waiting for review. Approving turns one into a publisher account that keeps its links, clicks and conversions."
      >
        <RoleNote />
        <Claims />
      </Page>
    </OperatorOnly>
  );
}

function Claims() {
  const fmt = useFormat();
  const confirm = useConfirm();
  const list = useQuery(claimsQuery('under_review'));
  const [secret, setSecret] = useState<{ application: string; secret: string } | null>(null);
  const { act, pending, done, error } = useAct(
    async ({ id, decision }: { id: string; decision: 'approve' | 'reject' }) => {
      const r = await reviewClaim(id, decision);
      setSecret(r.api_key?.secret ? { application: id, secret: r.api_key.secret } : null);
      return `Application ${r.application_id} is now ${r.status} (account ${r.account_id}).`;
    },
    ['operator', 'claims'],
  );
  return (
    <Section title="Claims under review">
      <ActOutcome done={done} error={error} />
      {secret && (
        <Notice tone="warning" title="An API key was issued: shown this once">
          <p>
            Application {secret.application} was claimed without a portal sign-in. Hand its creator this key now; it is never shown again:{' '}
            <code className="mono">{secret.secret}</code>
          </p>
        </Notice>
      )}
      {list.isPending ? (
        <Loading label="Loading the claims…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">No claim is waiting for review.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of claims under review" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">Creator</th>
                <th scope="col">Links</th>
                <th scope="col">Claim deadline</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => {
                const who = c.profile?.display_name || c.publisher_url || c.application_id;
                return (
                  <tr key={c.application_id}>
                    <td>
                      <span className="mono">{c.application_id}</span>
                      <p className="muted small">{words(c.source)}</p>
                    </td>
                    <td>
                      {who}
                      {c.profile?.website && <p className="muted small">{c.profile.website}</p>}
                    </td>
                    <td>{fmt.number(c.links)}</td>
                    <td className="nowrap">
                      {fmt.dateTime(c.claim_deadline)}
                      {c.overdue && (
                        <p>
                          <StatusPill tone="warning">Overdue</StatusPill>
                        </p>
                      )}
                    </td>
                    <td>
                      <div className="button-row">
                        <button
                          type="button"
                          className="button button-primary button-small"
                          aria-disabled={pending || undefined}
                          onClick={() => !pending && act({ id: c.application_id, decision: 'approve' })}
                        >
                          Approve<span className="visually-hidden"> claim {c.application_id}</span>
                        </button>
                        <button
                          type="button"
                          className="button button-danger button-small"
                          aria-disabled={pending || undefined}
                          onClick={() =>
                            void (async () => {
                              if (pending) return;
                              const ok = await confirm({
                                title: `Reject claim ${c.application_id}?`,
                                body: 'Its provisional publisher is deactivated: its links stop earning. This is recorded in the audit log.',
                                confirmLabel: 'Yes, reject the claim',
                                danger: true,
                              });
                              if (ok) act({ id: c.application_id, decision: 'reject' });
                            })()
                          }
                        >
                          Reject<span className="visually-hidden"> claim {c.application_id}</span>
                        </button>
                      </div>
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

/** The publisher a page is about: a labelled field kept in the URL (?publisher=). */
function PublisherPicker({ label, submit }: { label: string; submit: string }) {
  const [params, setParams] = useSearchParams();
  const current = params.get('publisher') ?? '';
  const [value, setValue] = useState(current);
  const id = useId();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const v = value.trim();
    setParams(v ? { publisher: v } : {});
  };
  return (
    <form className="form form-inline filter-form" onSubmit={onSubmit} noValidate aria-label={label}>
      <div className="field">
        <label htmlFor={id}>Publisher account id</label>
        <input id={id} name="publisher" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="off" spellCheck={false} />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          {submit}
        </button>
      </div>
    </form>
  );
}

// Keys

export function OperatorKeysPage() {
  return (
    <OperatorOnly title="Publisher keys">
      <Page
        title="Publisher keys"
        eyebrow={EYEBROW}
        docTitle="Publisher keys · Operations"
        description="A publisher's credentials (display prefixes only, never a secret). A revoked key answers 401 at its next request."
      >
        <RoleNote />
        <Section title="Find the publisher">
          <PublisherPicker label="Publisher whose keys to show" submit="Show keys" />
        </Section>
        <PublisherKeys />
      </Page>
    </OperatorOnly>
  );
}

function PublisherKeys() {
  const [params] = useSearchParams();
  const publisher = params.get('publisher') ?? '';
  const confirm = useConfirm();
  const list = useQuery(credentialsQuery(publisher));
  const { act, pending, done, error } = useAct(
    async ({ id, prefix }: { id: string; prefix: string }) => {
      await revokeCredential(id);
      return `Key ${prefix}… is revoked.`;
    },
    ['operator', 'keys', publisher],
  );
  if (!publisher) return null;
  return (
    <Section title={`Keys of ${publisher}`}>
      <ActOutcome done={done} error={error} />
      {list.isPending ? (
        <Loading label="Loading the keys…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">This publisher has no credentials.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of the publisher's keys" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((c) => (
                <tr key={c.id} data-credential={c.id}>
                  <td>
                    <span className="mono">{c.prefix}…</span>
                    <p className="muted small mono">{c.id}</p>
                  </td>
                  <td>
                    {words(c.type)}
                    {c.kind && <p className="muted small">{words(c.kind)}</p>}
                  </td>
                  <td>
                    <StatusPill tone={credentialTone(c.status)}>{words(c.status)}</StatusPill>
                  </td>
                  <td>
                    {c.status === 'active' ? (
                      <button
                        type="button"
                        className="button button-danger button-small"
                        aria-disabled={pending || undefined}
                        onClick={() =>
                          void (async () => {
                            if (pending) return;
                            const ok = await confirm({
                              title: `Revoke key ${c.prefix}…?`,
                              body: 'Every request made with it is refused (401) from its next one. The publisher issues a new key in the portal. This is recorded in the audit log.',
                              confirmLabel: 'Yes, revoke the key',
                              danger: true,
                            });
                            if (ok) act({ id: c.id, prefix: c.prefix });
                          })()
                        }
                      >
                        Revoke<span className="visually-hidden"> key {c.prefix}</span>
                      </button>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

// Dead letters

export function DeadLettersPage() {
  return (
    <OperatorOnly title="Dead letters">
      <Page
        title="Dead letters"
        eyebrow={EYEBROW}
        docTitle="Dead letters · Operations"
        description="A publisher's postback deliveries that failed every attempt. Redelivering sends one again under its delivery id."
      >
        <RoleNote />
        <Section title="Find the publisher">
          <PublisherPicker label="Publisher whose dead letters to show" submit="Show dead letters" />
        </Section>
        <DeadLetters />
      </Page>
    </OperatorOnly>
  );
}

function DeadLetters() {
  const [params] = useSearchParams();
  const publisher = params.get('publisher') ?? '';
  const fmt = useFormat();
  const list = useQuery(deliveriesQuery(publisher));
  const { act, pending, done, error } = useAct(
    async (id: string) => {
      const r = await redeliver(publisher, id);
      return `Delivery ${r.ids[0] ?? id} is queued again.`;
    },
    ['operator', 'deliveries', publisher],
  );
  if (!publisher) return null;
  return (
    <Section title={`Dead letters of ${publisher}`} description={`Newest first. Times in ${fmt.timeZone}.`}>
      <ActOutcome done={done} error={error} />
      {list.isPending ? (
        <Loading label="Loading the dead letters…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">No dead letters: every delivery of this publisher arrived or is still being tried.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of dead letters" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <span className="mono">{d.id}</span>
                    <p className="muted small mono">{d.conversion_id}</p>
                  </td>
                  <td>{d.event}</td>
                  <td>
                    <StatusPill tone={deliveryTone(d.status)}>{words(d.status)}</StatusPill>
                    {d.last_error && <p className="muted small">{d.last_error}</p>}
                  </td>
                  <td>{fmt.number(d.attempts)}</td>
                  <td className="nowrap">{fmt.dateTime(d.last_attempt_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      aria-disabled={pending || undefined}
                      onClick={() => !pending && act(d.id)}
                    >
                      Redeliver<span className="visually-hidden"> delivery {d.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

// Audit log

export const ACTION_WORDS: Record<string, string> = {
  publisher_reviewed: 'Publisher reviewed',
  credential_revoked: 'Credential revoked',
  credential_issued: 'Credential issued',
  application_reviewed: 'Claim reviewed',
  postback_redelivered: 'Postback redelivered',
  operator_role_granted: 'Operator role granted',
  operator_role_revoked: 'Operator role taken away',
};

export function AuditPage() {
  return (
    <OperatorOnly title="Audit log">
      <Page
        title="Audit log"
        eyebrow={EYEBROW}
        docTitle="Audit log · Operations"
        description="Every operator act and every security event of the accounts, newest first. Nothing here can be edited or deleted."
      >
        <AuditLog />
      </Page>
    </OperatorOnly>
  );
}

const FILTER_FIELDS = [
  { name: 'account', label: 'Account id' },
  { name: 'actor', label: 'Actor', hint: 'An e-mail address or a key prefix.' },
  { name: 'action', label: 'Act', hint: 'For example publisher_reviewed or credential_revoked.' },
] as const;

function AuditLog() {
  const fmt = useFormat();
  const [params, setParams] = useSearchParams();
  const filters: AuditFilters = {};
  for (const f of FILTER_FIELDS) {
    const v = params.get(f.name);
    if (v) filters[f.name] = v;
  }
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const ids = { account: useId(), actor: useId(), action: useId() };
  const log = useInfiniteQuery(auditQuery(filters));
  const rows: AuditEntry[] = log.data?.pages.flatMap((p) => p.data) ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: Record<string, string> = {};
    for (const f of FILTER_FIELDS) if (draft[f.name]?.trim()) next[f.name] = draft[f.name]!.trim();
    setParams(next);
  };
  return (
    <>
      <Section title="Filters">
        <form className="form form-inline filter-form" onSubmit={submit} noValidate aria-label="Audit log filters">
          {FILTER_FIELDS.map((f) => (
            <div className="field" key={f.name}>
              <label htmlFor={ids[f.name]}>{f.label}</label>
              {'hint' in f && (
                <p className="hint" id={`${ids[f.name]}-hint`}>
                  {f.hint}
                </p>
              )}
              <input
                id={ids[f.name]}
                name={f.name}
                value={draft[f.name] ?? ''}
                onChange={(e) => setDraft((d) => ({ ...d, [f.name]: e.target.value }))}
                aria-describedby={'hint' in f ? `${ids[f.name]}-hint` : undefined}
                autoComplete="off"
                spellCheck={false}
              />
            </div>
          ))}
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Apply filters
            </button>
            {Object.keys(filters).length > 0 && (
              <button
                type="button"
                className="button button-ghost"
                onClick={() => {
                  setDraft({});
                  setParams({});
                }}
              >
                Clear filters
              </button>
            )}
          </div>
        </form>
      </Section>
      <Section title="Entries" description={`Newest first. Times in ${fmt.timeZone}.`}>
        {log.isPending ? (
          <Loading label="Loading the audit log…" />
        ) : log.isError && !log.data ? (
          <ErrorNotice error={log.error} onRetry={() => void log.refetch()} />
        ) : rows.length === 0 ? (
          <p className="empty">No entry matches these filters.</p>
        ) : (
          <>
            <div className="table-wrap" role="region" aria-label="Table of audit entries" tabIndex={0}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Act</th>
                    <th scope="col">Who</th>
                    <th scope="col">Account</th>
                    <th scope="col">When</th>
                    <th scope="col">Request</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((e) => (
                    <tr key={e.id} data-action={e.action}>
                      <td>
                        <span className="strong">{ACTION_WORDS[e.action] ?? words(e.action)}</span>
                        <p className="muted small">{detailText(e.detail)}</p>
                      </td>
                      <td>
                        {e.actor.email ?? (e.actor.credential ? <span className="mono">{e.actor.credential}</span> : <span className="muted">—</span>)}
                        {e.actor.operator_role && <p className="muted small">Operator ({e.actor.operator_role})</p>}
                      </td>
                      <td>{e.account_id ? <span className="mono">{e.account_id}</span> : <span className="muted">The network</span>}</td>
                      <td className="nowrap">{fmt.dateTime(e.at)}</td>
                      <td>{e.request_id ? <span className="mono small">{e.request_id}</span> : <span className="muted">—</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {log.hasNextPage && (
              <div className="load-more">
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => !log.isFetchingNextPage && void log.fetchNextPage()}
                  aria-disabled={log.isFetchingNextPage || undefined}
                >
                  {log.isFetchingNextPage ? 'Loading…' : 'Load more'}
                </button>
              </div>
            )}
            {log.isFetchNextPageError && <ErrorNotice error={log.error} onRetry={() => void log.fetchNextPage()} />}
          </>
        )}
      </Section>
    </>
  );
}

function detailText(detail: Record<string, unknown>): string {
  return Object.entries(detail ?? {})
    .filter(([, v]) => v != null && typeof v !== 'object')
    .map(([k, v]) => `${words(k)}: ${String(v)}`)
    .join(' · ');
}
