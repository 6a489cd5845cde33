/**
 * Missing sales (`/inquiries`): the account's missing-sale inquiries (status filter; each with its
 * program, order, amount, status, deadline, the rejection's reason or the conversion an acceptance
 * credited, and the platform's click evidence) and "File an inquiry" (owners and developers): the
 * API names a bad field and the form shows it there; after filing, the evidence the platform
 * attached (each click verified or not). A form's retry carries the same Idempotency-Key.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router';
import { allProgramsQuery, type ProgramPage } from '../api/catalog';
import { fileInquiry, inquiriesQuery, inquiryKeys, type Inquiry, type InquiryInput, type InquiryStatus } from '../api/inquiries';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading, Notice, StatusPill, type PillTone } from '../components/feedback';
import { Form, SelectField, SubmitButton, TextField, useFormState } from '../components/form';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';
import { inquiryInputOf } from './inquiry-form';

const TITLE = 'Missing sales';

const STATUS: Record<InquiryStatus, { label: string; tone: PillTone }> = {
  open: { label: 'Open', tone: 'info' },
  accepted: { label: 'Accepted', tone: 'success' },
  rejected: { label: 'Rejected', tone: 'danger' },
};

/** Why an inquiry was rejected, in words. */
export const REASON_WORDS: Record<string, string> = {
  duplicate: 'Duplicate: the order is already credited',
  no_order: 'No such order at the merchant',
  returned: 'The order was returned or cancelled',
  outside_window: 'No verified click of yours in the cookie window before the order',
  other: 'Another reason (ask the merchant)',
};

const DECIDED_BY: Record<string, string> = { merchant: 'by the merchant', operator: 'by the network', window: 'after the deadline, on its evidence' };

const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'JPY', 'AUD', 'CAD'];

export function InquiriesPage() {
  return (
    <AccountGate title={TITLE}>
      <Inquiries />
    </AccountGate>
  );
}

function Inquiries() {
  const account = useAccount();
  const programs = useQuery(allProgramsQuery(account.account_id));
  const names = useMemo(() => new Map((programs.data?.data ?? []).map((p) => [p.id, p.name])), [programs.data]);
  const canFile = account.role === 'owner' || account.role === 'developer';
  return (
    <Page
      title={TITLE}
      description="An order you earned that was not credited: file an inquiry and the merchant decides it, seeing the clicks the platform recorded for you. Unanswered by its deadline, it is accepted when a verified click of yours is in the program's cookie window before the order."
    >
      {canFile ? (
        <FileInquiry accountId={account.account_id} programs={programs} />
      ) : (
        <Section title="File an inquiry">
          <p className="muted">Only owners and developers of the account file inquiries; you can follow them below.</p>
        </Section>
      )}
      <InquiryList accountId={account.account_id} names={names} />
    </Page>
  );
}

const LABELS = {
  program_id: 'Program',
  order_id: 'Order id',
  occurred_at: 'When the order was placed',
  amount: 'Order amount',
  currency: 'Currency',
  click_id: 'Click id',
  note: 'Note for the merchant',
};

function FileInquiry({ accountId, programs }: { accountId: string; programs: UseQueryResult<ProgramPage> }) {
  const fmt = useFormat();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const form = useFormState(null, LABELS);
  const approved = (programs.data?.data ?? []).filter((p) => p.relationship === 'approved');
  const [programId, setProgramId] = useState('');
  const [orderId, setOrderId] = useState('');
  const [occurredAt, setOccurredAt] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('EUR');
  const [clickId, setClickId] = useState('');
  const [note, setNote] = useState('');
  const [filed, setFiled] = useState<{ inquiry: Inquiry; before: boolean } | null>(null);
  const outcomeId = useId();
  // One key per body: a retry of the same form replays the first answer; a changed form is a new call.
  const idem = useRef<{ body: string; key: string } | null>(null);

  const file = useMutation({
    mutationFn: (input: InquiryInput) => {
      const body = JSON.stringify(input);
      if (idem.current?.body !== body) idem.current = { body, key: crypto.randomUUID() };
      return fileInquiry(accountId, input, idem.current.key);
    },
    onMutate: () => {
      setFiled(null);
      form.clear();
    },
    onSuccess: async (inquiry) => {
      // The same order filed before answers its first inquiry: one the list holds already, or one filed more than a minute ago.
      const known = queryClient
        .getQueriesData<{ pages: Array<{ data: Inquiry[] }> }>({ queryKey: inquiryKeys.all(accountId) })
        .some(([, d]) => d?.pages.some((pg) => pg.data.some((i) => i.id === inquiry.id)));
      const before = known || Date.now() - new Date(inquiry.created_at).getTime() > 60_000;
      setFiled({ inquiry, before });
      announce(before ? `Order ${inquiry.order_id} was filed before: its inquiry is shown.` : `Inquiry filed for order ${inquiry.order_id}.`);
      if (!before) {
        setOrderId('');
        setAmount('');
        setClickId('');
        setNote('');
        setOccurredAt('');
      }
      await queryClient.invalidateQueries({ queryKey: inquiryKeys.all(accountId) });
    },
    onError: (e) => form.fail(e),
  });

  // What happened takes the focus once it is on the page.
  useEffect(() => {
    if (filed) document.getElementById(outcomeId)?.focus();
  }, [filed, outcomeId]);

  const submit = () => {
    // Whatever is missing or wrong, the API names it and the form shows it on its field.
    file.mutate(inquiryInputOf({ programId, orderId, occurredAt, amount, currency, clickId, note }));
  };

  return (
    <Section
      title="File an inquiry"
      description="For an order of a program you are approved for, placed in the last 90 days. Filing the same order again shows its first inquiry."
    >
      {programs.isError ? (
        <ErrorNotice error={programs.error} title="Your programs could not be loaded" onRetry={() => void programs.refetch()} />
      ) : programs.isPending ? (
        <Loading label="Loading your programs…" lines={2} />
      ) : !approved.length ? (
        <p className="empty">
          You are not approved for any program yet: inquiries are for orders of programs you promote. <Link to="/programs">Find programs</Link>
        </p>
      ) : (
        <Form form={form} onSubmit={submit} pending={file.isPending} label="File an inquiry">
          <SelectField
            form={form}
            name="program_id"
            value={programId}
            onChange={(v) => {
              setProgramId(v);
              const chosen = approved.find((p) => String(p.id) === v);
              if (chosen?.currency && CURRENCIES.includes(chosen.currency)) setCurrency(chosen.currency);
            }}
            options={[{ value: '', label: 'Choose a program' }, ...approved.map((p) => ({ value: String(p.id), label: `${p.name} (${p.merchant.name})` }))]}
          />
          <TextField
            form={form}
            name="order_id"
            value={orderId}
            onChange={setOrderId}
            maxLength={128}
            autoComplete="off"
            hint="As the merchant knows it: from your customer's confirmation or the merchant's report."
          />
          <TextField
            form={form}
            name="occurred_at"
            type="datetime-local"
            value={occurredAt}
            onChange={setOccurredAt}
            hint={`Your browser's time (${Intl.DateTimeFormat().resolvedOptions().timeZone}). Not in the future, at most 90 days ago.`}
          />
          <div className="field-row">
            <TextField
              form={form}
              name="amount"
              value={amount}
              onChange={setAmount}
              inputMode="decimal"
              autoComplete="off"
              hint="The order's amount, like 89.90 (a point before the cents)."
            />
            <SelectField form={form} name="currency" value={currency} onChange={setCurrency} options={CURRENCIES.map((c) => ({ value: c, label: c }))} />
          </div>
          <TextField
            form={form}
            name="click_id"
            value={clickId}
            onChange={setClickId}
            optional
            autoComplete="off"
            spellCheck={false}
            hint="The cw_click_id your tracked link added to the merchant's page, if you know it. The platform adds your clicks before the order anyway."
          />
          <TextField form={form} name="note" value={note} onChange={setNote} optional maxLength={1000} hint="Shown to the merchant." />
          <div className="form-actions">
            <SubmitButton pending={file.isPending}>File the inquiry</SubmitButton>
          </div>
        </Form>
      )}
      {filed && (
        <div className="results">
          <h3 id={outcomeId} tabIndex={-1} className="section-title">
            {filed.before ? `Order ${filed.inquiry.order_id} was filed before` : `Inquiry filed for order ${filed.inquiry.order_id}`}
          </h3>
          <p>
            <StatusPill tone={STATUS[filed.inquiry.status].tone}>{STATUS[filed.inquiry.status].label}</StatusPill>{' '}
            {filed.inquiry.status === 'open' && <>The merchant has until {fmt.dateTime(filed.inquiry.respond_by)} to answer.</>}{' '}
            <span className="muted small mono">{filed.inquiry.id}</span>
          </p>
          <Evidence inquiry={filed.inquiry} open />
        </div>
      )}
    </Section>
  );
}

/** The clicks the platform attached: each verified (its signed id holds, in the cookie window before the order) or not. */
function Evidence({ inquiry, open }: { inquiry: Inquiry; open?: boolean }) {
  const fmt = useFormat();
  const clicks = inquiry.evidence.clicks;
  const verified = clicks.filter((c) => c.verified).length;
  const summary = clicks.length
    ? `Evidence: ${fmt.number(clicks.length)} ${clicks.length === 1 ? 'click' : 'clicks'}, ${fmt.number(verified)} verified`
    : 'Evidence: no click';
  return (
    <details open={open}>
      <summary>
        {summary}
        <span className="visually-hidden">, order {inquiry.order_id}</span>
      </summary>
      {clicks.length ? (
        <ul className="plain-list" aria-label={`Clicks of order ${inquiry.order_id}`}>
          {clicks.map((c) => (
            <li key={c.click_id}>
              {fmt.dateTime(c.clicked_at)} <StatusPill tone={c.verified ? 'success' : 'warning'}>{c.verified ? 'Verified' : 'Not verified'}</StatusPill>{' '}
              <span className="muted small mono">{c.click_id}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">
          The platform recorded no click of yours on this program in its cookie window before the order. The merchant may still accept it.
        </p>
      )}
    </details>
  );
}

function Outcome({ inquiry }: { inquiry: Inquiry }) {
  const fmt = useFormat();
  if (inquiry.status === 'accepted')
    return (
      <>
        {inquiry.conversion_id ? (
          <Link to={`/conversions/${encodeURIComponent(inquiry.conversion_id)}`}>
            Conversion {inquiry.conversion_id}
            <span className="visually-hidden">, order {inquiry.order_id}</span>
          </Link>
        ) : (
          'Credited'
        )}
        <p className="muted small">
          Accepted {DECIDED_BY[inquiry.decided_by ?? ''] ?? ''} {fmt.dateTime(inquiry.decided_at)}
        </p>
      </>
    );
  if (inquiry.status === 'rejected')
    return (
      <>
        {REASON_WORDS[inquiry.reason ?? 'other']}
        <p className="muted small">
          Rejected {DECIDED_BY[inquiry.decided_by ?? ''] ?? ''} {fmt.dateTime(inquiry.decided_at)}
        </p>
      </>
    );
  if (inquiry.conflict) return <>The order is already credited to another sale: the merchant will reject it as a duplicate.</>;
  return <span className="muted">Waiting for the merchant</span>;
}

function InquiryList({ accountId, names }: { accountId: string; names: Map<number, string> }) {
  const fmt = useFormat();
  const filterId = useId();
  const [status, setStatus] = useState<InquiryStatus | ''>('');
  const list = useInfiniteQuery(inquiriesQuery(accountId, status));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Section title="Your inquiries" description="Newest first.">
      <div className="form form-inline filter-form">
        <div className="field">
          <label htmlFor={filterId}>Status</label>
          <select id={filterId} value={status} onChange={(e) => setStatus(e.target.value as InquiryStatus | '')}>
            <option value="">All</option>
            <option value="open">Open</option>
            <option value="accepted">Accepted</option>
            <option value="rejected">Rejected</option>
          </select>
        </div>
      </div>
      {list.isPending ? (
        <Loading label="Loading your inquiries…" />
      ) : list.isError && !rows.length ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : !rows.length ? (
        <p className="empty">
          {status ? `No ${STATUS[status].label.toLowerCase()} inquiry.` : 'No inquiry yet. File one above for an order that was not credited.'}
        </p>
      ) : (
        <>
          <div className="table-wrap" role="region" aria-label="Table of inquiries" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Program</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Respond by</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Evidence</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((i) => (
                  <tr key={i.id} data-inquiry={i.id}>
                    <td>
                      <span className="strong mono">{i.order_id}</span>
                      <p className="muted small">Ordered {fmt.dateTime(i.occurred_at)}</p>
                      {i.note && <p className="small">{i.note}</p>}
                    </td>
                    <td>{names.get(i.program_id) ?? `Program ${i.program_id}`}</td>
                    <td className="num">{fmt.money(i.amount, i.currency)}</td>
                    <td>
                      <StatusPill tone={STATUS[i.status].tone}>{STATUS[i.status].label}</StatusPill>
                    </td>
                    <td className="nowrap">{i.status === 'open' ? fmt.dateTime(i.respond_by) : <span className="muted">—</span>}</td>
                    <td>
                      <Outcome inquiry={i} />
                    </td>
                    <td>
                      <Evidence inquiry={i} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.isError && <ErrorNotice error={list.error} title="More inquiries could not be loaded" onRetry={() => void list.fetchNextPage()} />}
          {list.hasNextPage && (
            <div className="button-row">
              <button
                type="button"
                className="button button-secondary"
                aria-disabled={list.isFetchingNextPage || undefined}
                onClick={() => !list.isFetchingNextPage && void list.fetchNextPage()}
              >
                Show more inquiries
                {list.isFetchingNextPage && <span className="spinner" aria-hidden="true" />}
              </button>
            </div>
          )}
        </>
      )}
      {!list.isPending && rows.length > 0 && (
        <Notice tone="info">
          <p className="small">An accepted inquiry is a sale like any other: its commission is pending until the merchant approves it.</p>
        </Notice>
      )}
    </Section>
  );
}
