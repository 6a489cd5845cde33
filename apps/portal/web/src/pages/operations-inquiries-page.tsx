/**
 * Operations, Missing sales (`/operations/inquiries`): publishers' missing-sale inquiries, open ones
 * by deadline (overdue ones marked), only the overdue ones, or decided ones; an admin accepts one
 * (the order is credited to the publisher) or rejects it with a reason. Support reads; every
 * decision is audited on the publisher's account and its owners are mailed.
 */
import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  decideInquiry,
  operatorInquiriesQuery,
  operatorInquiryKeys,
  REJECT_REASONS,
  type OperatorInquiry,
  type OperatorInquiryFilter,
  type RejectReason,
} from '../api/inquiries';
import { useAnnounce } from '../components/announcer';
import { useConfirm } from '../components/dialog';
import { ErrorNotice, Loading, Notice, StatusPill } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { useSessionState } from '../session';
import { REASON_WORDS } from './inquiries-page';
import { OperatorOnly } from './operations-pages';

const TITLE = 'Missing sales';

const FILTERS: Array<{ value: OperatorInquiryFilter; label: string }> = [
  { value: 'open', label: 'Open, by deadline' },
  { value: 'overdue', label: 'Overdue only' },
  { value: 'accepted', label: 'Accepted' },
  { value: 'rejected', label: 'Rejected' },
];

export function OperationsInquiriesPage() {
  return (
    <OperatorOnly title={TITLE}>
      <Page
        title={TITLE}
        eyebrow="Operations"
        docTitle={`${TITLE} · Operations`}
        description="Publishers' missing-sale inquiries. The merchant decides an inquiry; unanswered by its deadline, the platform decides it on its evidence. Step in when one is escalated: every decision is recorded in the audit log and mailed to the account's owners."
      >
        <OperatorInquiries />
      </Page>
    </OperatorOnly>
  );
}

function OperatorInquiries() {
  const fmt = useFormat();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const admin = useSessionState().session.operator?.role === 'admin';
  const filterId = useId();
  const [filter, setFilter] = useState<OperatorInquiryFilter>('open');
  const [reasons, setReasons] = useState<Record<string, RejectReason>>({});
  const [done, setDone] = useState<string | null>(null);
  const list = useQuery(operatorInquiriesQuery(filter));
  const decide = useMutation({
    mutationFn: ({ id, reason }: { id: string; reason?: RejectReason }) => decideInquiry(id, reason ? { accept: false, reason } : { accept: true }),
    onMutate: () => setDone(null),
    onSuccess: async (i) => {
      const message =
        i.status === 'accepted'
          ? `Inquiry ${i.id} accepted: order ${i.order_id} is credited as conversion ${i.conversion_id ?? ''}.`
          : `Inquiry ${i.id} rejected: ${REASON_WORDS[i.reason ?? 'other']}.`;
      setDone(message);
      announce(message);
      await queryClient.invalidateQueries({ queryKey: operatorInquiryKeys.all });
    },
  });
  const pending = decide.isPending;
  const accept = async (i: OperatorInquiry) => {
    if (pending) return;
    const ok = await confirm({
      title: `Accept inquiry ${i.id}?`,
      body: `Order ${i.order_id} (${fmt.money(i.amount, i.currency)}) is credited to ${i.publisher_id} as a pending sale. A decision stands; it is recorded in the audit log.`,
      confirmLabel: 'Yes, credit the order',
    });
    if (ok) decide.mutate({ id: i.id });
  };
  const reject = async (i: OperatorInquiry) => {
    if (pending) return;
    const reason = reasons[i.id] ?? 'other';
    const ok = await confirm({
      title: `Reject inquiry ${i.id}?`,
      body: `Reason: ${REASON_WORDS[reason]}. A decision stands; it is recorded in the audit log.`,
      confirmLabel: 'Yes, reject the inquiry',
      danger: true,
    });
    if (ok) decide.mutate({ id: i.id, reason });
  };
  const rows = list.data?.data ?? [];
  return (
    <Section title="Inquiries">
      {!admin && (
        <Notice tone="info" title="You are a support operator">
          <p>You can read the inquiries; accepting and rejecting need an admin operator.</p>
        </Notice>
      )}
      <div className="form form-inline filter-form">
        <div className="field">
          <label htmlFor={filterId}>Show</label>
          <select id={filterId} value={filter} onChange={(e) => setFilter(e.target.value as OperatorInquiryFilter)}>
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {decide.error ? (
        <ErrorNotice error={decide.error} />
      ) : (
        done && (
          <Notice tone="success" role="status">
            <p>{done}</p>
          </Notice>
        )
      )}
      {list.isPending ? (
        <Loading label="Loading the inquiries…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : !rows.length ? (
        <p className="empty">{filter === 'overdue' ? 'No inquiry is past its deadline.' : `No ${filter} inquiry.`}</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of inquiries" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Inquiry</th>
                <th scope="col">Order</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Respond by</th>
                <th scope="col">Evidence</th>
                <th scope="col">{filter === 'open' || filter === 'overdue' ? 'Actions' : 'Outcome'}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => {
                const verified = i.evidence.clicks.filter((c) => c.verified).length;
                return (
                  <tr key={i.id} data-inquiry={i.id}>
                    <td>
                      <span className="mono">{i.id}</span>
                      <p className="muted small">
                        Publisher <span className="mono">{i.publisher_id}</span>, merchant {i.merchant_id}, program {i.program_id}
                      </p>
                      <p className="muted small">Filed {fmt.dateTime(i.created_at)}</p>
                    </td>
                    <td>
                      <span className="mono">{i.order_id}</span>
                      <p className="muted small">Ordered {fmt.dateTime(i.occurred_at)}</p>
                      {i.note && <p className="small">{i.note}</p>}
                      {i.conflict && <p className="small">The order is already credited: reject it as a duplicate.</p>}
                    </td>
                    <td className="num">{fmt.money(i.amount, i.currency)}</td>
                    <td className="nowrap">
                      {fmt.dateTime(i.respond_by)}
                      {i.overdue && (
                        <p>
                          <StatusPill tone="warning">Overdue</StatusPill>
                        </p>
                      )}
                    </td>
                    <td>
                      {fmt.number(i.evidence.clicks.length)} {i.evidence.clicks.length === 1 ? 'click' : 'clicks'}, {fmt.number(verified)} verified
                    </td>
                    <td>
                      {i.status === 'open' ? (
                        <div className="button-row">
                          <button
                            type="button"
                            className="button button-primary button-small"
                            aria-disabled={pending || !admin || undefined}
                            onClick={() => admin && void accept(i)}
                          >
                            Accept<span className="visually-hidden"> inquiry {i.id}</span>
                          </button>
                          <label className="visually-hidden" htmlFor={`reason-${i.id}`}>
                            Reason for rejecting inquiry {i.id}
                          </label>
                          <select
                            id={`reason-${i.id}`}
                            value={reasons[i.id] ?? 'other'}
                            disabled={!admin}
                            onChange={(e) => setReasons((r) => ({ ...r, [i.id]: e.target.value as RejectReason }))}
                          >
                            {REJECT_REASONS.map((r) => (
                              <option key={r} value={r}>
                                {REASON_WORDS[r]}
                              </option>
                            ))}
                          </select>
                          <button
                            type="button"
                            className="button button-danger button-small"
                            aria-disabled={pending || !admin || undefined}
                            onClick={() => admin && void reject(i)}
                          >
                            Reject<span className="visually-hidden"> inquiry {i.id}</span>
                          </button>
                        </div>
                      ) : (
                        <>
                          <StatusPill tone={i.status === 'accepted' ? 'success' : 'danger'}>{i.status === 'accepted' ? 'Accepted' : 'Rejected'}</StatusPill>
                          <p className="muted small">
                            {i.status === 'accepted' ? `Conversion ${i.conversion_id ?? '—'}` : REASON_WORDS[i.reason ?? 'other']}, by {i.decided_by ?? '—'}{' '}
                            {fmt.dateTime(i.decided_at)}
                          </p>
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
