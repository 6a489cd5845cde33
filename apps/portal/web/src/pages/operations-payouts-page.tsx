/**
 * Operations, Payouts: payout runs (status, totals per currency and rail, held payouts), "Create a
 * run", a run's payouts with Release / Cancel for held ones, "Approve run" (an admin other than its
 * creator: the creator's refusal is shown as the server gives it), the rail files to download,
 * settling from the bank's file or the sandbox bank, and importing the ECB's reference rates. Every
 * act goes through the payouts lib's operator use cases and is in the audit log.
 */
import { useId, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { isApiError } from '../api/client';
import {
  approvePayoutRun,
  createPayoutRun,
  decideHeldPayout,
  importFxRates,
  MAX_UPLOAD_CHARS,
  operatorPayoutKeys,
  payoutRunQuery,
  payoutRunsQuery,
  runFilesQuery,
  runFileUrl,
  settlePayoutRun,
  type PayoutRun,
  type RunPayout,
} from '../api/payouts';
import { useAnnounce } from '../components/announcer';
import { useConfirm } from '../components/dialog';
import { ErrorNotice, Loading, Notice, StatusPill } from '../components/feedback';
import { Page, Section } from '../components/page';
import { YearEnd } from './operations-year-end';
import { useFormat } from '../lib/format';
import { holdInWords, methodInWords, payoutStatus, railInWords, runStatus } from '../lib/payouts';
import { useSessionState } from '../session';
import { OperatorOnly } from './operations-pages';

const TITLE = 'Payouts';

export function OperationsPayoutsPage() {
  return (
    <OperatorOnly title={TITLE}>
      <Page
        title={TITLE}
        eyebrow="Operations"
        docTitle="Payouts · Operations"
        description="Payout runs: one admin creates a run, another approves it (the ledger books each payout), the files go to the bank or PayPal, and the bank's answer settles it. Every act is in the audit log."
      >
        <SupportNote />
        <Runs />
        <SelectedRun />
        <FxRates />
        <YearEnd />
      </Page>
    </OperatorOnly>
  );
}

function SupportNote() {
  if (useSessionState().session.operator?.role !== 'support') return null;
  return (
    <Notice tone="info" title="You are a support operator">
      <p>You can read runs and payouts; creating, approving, downloading files, settling and deciding held payouts need an admin operator.</p>
    </Notice>
  );
}

/** What the last act did, or why it was refused (each 4xx as the server words it). */
function Outcome({ done, error, refusedTitle }: { done: string | null; error: unknown; refusedTitle?: string }) {
  if (error) {
    const forbidden = isApiError(error) && error.status === 403 && error.code === 'forbidden';
    return <ErrorNotice error={error} title={forbidden ? refusedTitle : undefined} />;
  }
  if (done)
    return (
      <Notice tone="success" role="status">
        <p>{done}</p>
      </Notice>
    );
  return null;
}

function useAct<A>(run: (a: A) => Promise<string>) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [done, setDone] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: run,
    onMutate: () => setDone(null),
    onSuccess: async (message) => {
      setDone(message);
      announce(message);
      // The list only (a run's files are exported again only when asked for).
      await queryClient.invalidateQueries({ queryKey: operatorPayoutKeys.runs, exact: true });
    },
  });
  return { act: m.mutate, pending: m.isPending, done, error: m.error };
}

function Totals({ run }: { run: PayoutRun }) {
  const fmt = useFormat();
  if (!run.totals.length) return <span className="muted">No payouts to pay</span>;
  return (
    <ul className="plain-list">
      {run.totals.map((t) => (
        <li key={`${t.currency}|${t.rail}`}>
          {fmt.money(t.amount, t.currency)} · {railInWords(t.rail)} · {t.count} {t.count === 1 ? 'payout' : 'payouts'}
        </li>
      ))}
    </ul>
  );
}

function Runs() {
  const fmt = useFormat();
  const [params, setParams] = useSearchParams();
  const list = useQuery(payoutRunsQuery());
  const { act, pending, done, error } = useAct(async () => {
    const run = await createPayoutRun();
    setParams({ run: run._id });
    return `Run ${run._id} created: ${run.totals.reduce((n, t) => n + t.count, 0)} payouts to approve, ${run.held} held. Another admin approves it.`;
  });
  return (
    <Section
      title="Payout runs"
      description="Newest first. A run holds every publisher due now on the monthly schedule; requested payments come as runs of their own."
      actions={
        <button type="button" className="button button-primary" aria-disabled={pending || undefined} onClick={() => !pending && act(undefined)}>
          Create a run
        </button>
      }
    >
      <Outcome done={done} error={error} />
      {list.isPending ? (
        <Loading label="Loading the payout runs…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">No payout run yet.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of payout runs" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">To pay</th>
                <th scope="col" className="num">
                  Held
                </th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((r) => {
                const st = runStatus(r.status);
                const current = params.get('run') === r._id;
                return (
                  <tr key={r._id} data-run={r._id} aria-current={current || undefined}>
                    <td>
                      <span className="mono">{r._id}</span>
                      <p className="muted small">{r.kind === 'request' ? 'Requested by the publisher' : 'Monthly run'}</p>
                    </td>
                    <td>
                      <StatusPill tone={st.tone}>{st.label}</StatusPill>
                    </td>
                    <td>
                      <Totals run={r} />
                    </td>
                    <td className="num">{r.held}</td>
                    <td>
                      {fmt.dateTime(r.created_at)}
                      <p className="muted small">by {r.created_by}</p>
                    </td>
                    <td>
                      <button type="button" className="button button-secondary button-small" onClick={() => setParams({ run: r._id })}>
                        Open<span className="visually-hidden"> run {r._id}</span>
                      </button>
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

function SelectedRun() {
  const [params] = useSearchParams();
  const id = params.get('run') ?? '';
  const run = useQuery(payoutRunQuery(id));
  if (!id) return null;
  return (
    <Section title={`Run ${id}`}>
      {run.isPending ? (
        <Loading label="Loading the run…" />
      ) : run.isError ? (
        <ErrorNotice error={run.error} onRetry={() => void run.refetch()} />
      ) : (
        <RunDetail key={id} run={run.data.run} payouts={run.data.payouts} />
      )}
    </Section>
  );
}

function RunDetail({ run, payouts }: { run: PayoutRun; payouts: RunPayout[] }) {
  const fmt = useFormat();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const refresh = () => queryClient.invalidateQueries({ queryKey: operatorPayoutKeys.run(run._id), exact: true });
  const approve = useAct(async () => {
    const r = await approvePayoutRun(run._id);
    await refresh();
    return `Run ${r._id} approved: its payouts are booked and on their way. Download the files for the bank.`;
  });
  // Here, not in the form: the form goes once the run is settled, the outcome stays.
  const settle = useAct(async (input: { file: string } | { sandbox: true }) => {
    const r = await settlePayoutRun(run._id, input);
    await refresh();
    return `Run ${run._id} ${r.run.status === 'settled' ? 'is settled' : 'is partly settled'}: ${r.paid} paid, ${r.failed} failed (credited back), ${r.pending} still pending${r.unknown ? `, ${r.unknown} not of this run` : ''}.`;
  });
  const st = runStatus(run.status);
  const exported = run.status === 'approved' || run.status === 'settled';
  return (
    <>
      <dl className="summary-list">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusPill tone={st.tone}>{st.label}</StatusPill>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            {fmt.dateTime(run.created_at)} by {run.created_by}
          </dd>
        </div>
        <div>
          <dt>Approved</dt>
          <dd>{run.approved_at ? `${fmt.dateTime(run.approved_at)} by ${run.approved_by ?? '—'}` : 'Not yet'}</dd>
        </div>
        <div>
          <dt>Settled</dt>
          <dd>{run.settled_at ? fmt.dateTime(run.settled_at) : 'Not yet'}</dd>
        </div>
        <div>
          <dt>To pay</dt>
          <dd>
            <Totals run={run} />
          </dd>
        </div>
        <div>
          <dt>Held</dt>
          <dd>{run.held}</dd>
        </div>
      </dl>
      {(run.status === 'draft' || run.status === 'approving') && (
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            aria-disabled={approve.pending || undefined}
            onClick={() =>
              void (async () => {
                if (approve.pending) return;
                const ok = await confirm({
                  title: `Approve run ${run._id}?`,
                  body: 'Each pending payout is booked in the ledger and goes to the bank or PayPal with the files. An admin other than the run’s creator approves it.',
                  confirmLabel: 'Yes, approve the run',
                });
                if (ok) approve.act(undefined);
              })()
            }
          >
            Approve run<span className="visually-hidden"> {run._id}</span>
          </button>
        </div>
      )}
      <Outcome done={approve.done} error={approve.error} refusedTitle="Another admin must approve this run" />
      <RunPayouts payouts={payouts} onChange={refresh} />
      {exported && <RunFiles run={run} />}
      {run.status === 'approved' && <Settle act={settle.act} pending={settle.pending} />}
      <Outcome done={settle.done} error={settle.error} />
    </>
  );
}

function RunPayouts({ payouts, onChange }: { payouts: RunPayout[]; onChange: () => Promise<void> }) {
  const fmt = useFormat();
  const confirm = useConfirm();
  const { act, pending, done, error } = useAct(async ({ id, action }: { id: string; action: 'release' | 'cancel' }) => {
    const p = await decideHeldPayout(id, action);
    await onChange();
    return action === 'release' ? `Payout ${p.id} released: it is paid with its run.` : `Payout ${p.id} canceled: the balance stays with the publisher.`;
  });
  return (
    <>
      <h3 className="section-title">Payouts in the run</h3>
      <Outcome done={done} error={error} />
      {payouts.length === 0 ? (
        <p className="empty">This run has no payouts: nobody was due.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of payouts in the run" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Payout</th>
                <th scope="col">Publisher</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Rail and method</th>
                <th scope="col">Why it waits or failed</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {payouts.map((p) => {
                const st = payoutStatus(p.status);
                return (
                  <tr key={p.id} data-payout={p.id} data-status={p.status}>
                    <td className="mono">{p.id}</td>
                    <td className="mono">{p.publisher_id}</td>
                    <td>
                      <StatusPill tone={st.tone}>{st.label}</StatusPill>
                    </td>
                    <td className="num">{fmt.money(p.amount, p.currency)}</td>
                    <td>
                      {railInWords(p.rail)}
                      <p className="muted small">{methodInWords(p.method)}</p>
                    </td>
                    <td>
                      {p.hold ? (
                        p.hold.reasons.map(holdInWords).join('; ')
                      ) : p.failure ? (
                        `${p.failure.message} (${p.failure.code})`
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      {p.status === 'held' ? (
                        <div className="button-row">
                          <button
                            type="button"
                            className="button button-primary button-small"
                            aria-disabled={pending || undefined}
                            onClick={() => !pending && act({ id: p.id, action: 'release' })}
                          >
                            Release<span className="visually-hidden"> payout {p.id}</span>
                          </button>
                          <button
                            type="button"
                            className="button button-danger button-small"
                            aria-disabled={pending || undefined}
                            onClick={() =>
                              void (async () => {
                                if (pending) return;
                                const ok = await confirm({
                                  title: `Cancel payout ${p.id}?`,
                                  body: 'Nothing is paid; the balance stays with the publisher for a later payout. This is recorded in the audit log.',
                                  confirmLabel: 'Yes, cancel the payout',
                                  cancelLabel: 'Keep it',
                                  danger: true,
                                });
                                if (ok) act({ id: p.id, action: 'cancel' });
                              })()
                            }
                          >
                            Cancel<span className="visually-hidden"> payout {p.id}</span>
                          </button>
                        </div>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function RunFiles({ run }: { run: PayoutRun }) {
  const [wanted, setWanted] = useState(false);
  const files = useQuery(runFilesQuery(run._id, wanted));
  return (
    <>
      <h3 className="section-title">Files for the bank and PayPal</h3>
      {!wanted ? (
        <div className="button-row">
          <button type="button" className="button button-secondary" onClick={() => setWanted(true)}>
            Show files<span className="visually-hidden"> of run {run._id}</span>
          </button>
          <p className="muted small">Each export is recorded in the audit log.</p>
        </div>
      ) : files.isPending ? (
        <Loading label="Preparing the files…" lines={1} />
      ) : files.isError ? (
        <ErrorNotice error={files.error} onRetry={() => void files.refetch()} />
      ) : files.data.data.length === 0 ? (
        <p className="empty">No files: nothing in this run is paid.</p>
      ) : (
        <ul className="plain-list">
          {files.data.data.map((f) => (
            <li key={f.name}>
              <a href={runFileUrl(run._id, f.name)} download={f.name}>
                Download {f.name}
              </a>{' '}
              <span className="muted small">
                ({railInWords(f.rail)}, {Math.max(1, Math.round(f.bytes / 1024))} KB)
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** A file chosen in a labelled input, read as text (at most MAX_UPLOAD_CHARS: larger ones go through the admin CLI). */
function FileField({
  label,
  hint,
  accept,
  onText,
}: {
  label: string;
  hint: ReactNode;
  accept: string;
  onText: (text: string | null, problem: string | null) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <input
        id={id}
        type="file"
        accept={accept}
        aria-describedby={`${id}-hint`}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (!file) return onText(null, null);
          if (file.size > MAX_UPLOAD_CHARS) return onText(null, `${file.name} is larger than 1 MB: use the admin CLI for it.`);
          void file.text().then(
            (t) => onText(t, null),
            () => onText(null, `${file.name} could not be read.`),
          );
        }}
      />
    </div>
  );
}

function Settle({ act, pending }: { act: (input: { file: string } | { sandbox: true }) => void; pending: boolean }) {
  const confirm = useConfirm();
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <h3 className="section-title">Settle the run</h3>
      <form
        className="form form-narrow"
        aria-label="Settle with the bank's file"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (pending) return;
          if (!text) {
            setProblem(problem ?? 'Choose the bank’s status report or results file first.');
            return;
          }
          act({ file: text });
        }}
      >
        <FileField
          label="Bank status report or results CSV"
          hint="The pain.002 XML the bank sent back, or a CSV of payout_id, status, reason_code, reason_message. At most 1 MB."
          accept=".xml,.csv,application/xml,text/xml,text/csv"
          onText={(t, p) => {
            setText(t);
            setProblem(p);
          }}
        />
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" aria-disabled={pending || undefined}>
            Settle with the file
          </button>
          <button
            type="button"
            className="button button-secondary"
            aria-disabled={pending || undefined}
            onClick={() =>
              void (async () => {
                if (pending) return;
                const ok = await confirm({
                  title: 'Settle with the sandbox bank?',
                  body: 'The local platform’s bank pays every exported payment (a creditor named with FAIL is refused). Production has no sandbox bank.',
                  confirmLabel: 'Yes, settle with the sandbox bank',
                });
                if (ok) act({ sandbox: true });
              })()
            }
          >
            Settle with the sandbox bank
          </button>
        </div>
      </form>
    </>
  );
}

function FxRates() {
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const fmt = useFormat();
  const { act, pending, done, error } = useAct(async (xml: string) => {
    const r = await importFxRates(xml);
    return `Imported ${r.days} ${r.days === 1 ? 'day' : 'days'} of rates${r.from ? ` (${fmt.day(r.from)} to ${fmt.day(r.to)})` : ''}. Payouts convert at the newest.`;
  });
  return (
    <Section
      title="Exchange rates"
      description="The European Central Bank's reference rates; a payout in another currency converts at the newest day imported."
    >
      <form
        className="form form-narrow"
        aria-label="Import exchange rates"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (pending) return;
          if (!text) {
            setProblem(problem ?? 'Choose the ECB’s rates file first.');
            return;
          }
          act(text);
        }}
      >
        <FileField
          label="ECB reference rates (XML)"
          hint="eurofxref-daily.xml or eurofxref-hist-90d.xml from the ECB's website. At most 1 MB."
          accept=".xml,application/xml,text/xml"
          onText={(t, p) => {
            setText(t);
            setProblem(p);
          }}
        />
        {problem && (
          <p className="field-error" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-primary" aria-disabled={pending || undefined}>
            Import rates
          </button>
        </div>
      </form>
      <Outcome done={done} error={error} />
    </Section>
  );
}
