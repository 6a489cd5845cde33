/**
 * Conversions: the API's list with its filters (dates, status, channel, sub-ID) in the URL, newest first,
 * cursor paging, a CSV of exactly the filtered rows, the sub-ID rollup of the filtered set, and
 * new or changed conversions shown live (the events stream invalidates the list).
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import {
  activityKeys,
  CONVERSION_CHANNELS,
  CONVERSION_STATUSES,
  conversionsExportUrl,
  conversionsQuery,
  type Conversion,
  type ConversionChannel,
  type ConversionFilters,
  type ConversionStatus,
  type SubidRollup,
} from '../api/activity';
import { useAnnounce } from '../components/announcer';
import { ExportDownload } from '../components/export-download';
import { ErrorNotice, Loading, StatusPill, type PillTone } from '../components/feedback';
import { Page, Section } from '../components/page';
import { Pager, useCursorPaging, type CursorPaging } from '../components/pager';
import { useFormat } from '../lib/format';
import { LiveBadge, useLiveEvents, type SaleEvent } from '../lib/live';
import { useAccount } from '../session';
import { conversionFilterProblems, conversionFiltersOf, type ConversionFilterProblems } from './activity-filters';
import { AccountGate } from './account-gate';

const TITLE = 'Conversions';
/** How long a row that just arrived or changed stays marked. */
const FRESH_MS = 15_000;

export function ConversionsPage() {
  return (
    <AccountGate title={TITLE}>
      <Conversions />
    </AccountGate>
  );
}

const STATUS_TONES: Record<ConversionStatus, PillTone> = { approved: 'success', pending: 'info', declined: 'danger' };
const STATUS_WORDS: Record<ConversionStatus, string> = { approved: 'Approved', pending: 'Pending', declined: 'Declined' };
const CHANNEL_WORDS: Record<ConversionChannel, string> = { link: 'Link', code: 'Coupon code', agent: 'AI agent', inquiry: 'Inquiry' };

/** A conversion's status in words ("Reversed" for a declined sale that had been approved). */
export function ConversionStatusPill({ status, reversed }: { status: ConversionStatus; reversed?: boolean }) {
  return <StatusPill tone={STATUS_TONES[status] ?? 'neutral'}>{reversed && status === 'declined' ? 'Reversed' : (STATUS_WORDS[status] ?? status)}</StatusPill>;
}

/** Live events: the list refetched (its rows, the rollup), the rows they touched marked for a while. */
function useLiveConversions(accountId: string) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [fresh, setFresh] = useState<Map<string, string>>(new Map());
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const all = timers.current;
    return () => all.forEach(clearTimeout);
  }, []);
  const onEvent = useCallback(
    (e: SaleEvent) => {
      void queryClient.invalidateQueries({ queryKey: activityKeys.conversions(accountId) });
      void queryClient.invalidateQueries({ queryKey: activityKeys.conversion(accountId, e.conversion.id) });
      const what = e.type === 'sale.created' ? 'New' : e.event === 'reversed' ? 'Reversed' : e.event === 'approved' ? 'Approved' : 'Declined';
      setFresh((m) => new Map(m).set(e.conversion.id, what));
      const t = setTimeout(() => {
        timers.current.delete(t);
        setFresh((m) => {
          const next = new Map(m);
          next.delete(e.conversion.id);
          return next;
        });
      }, FRESH_MS);
      timers.current.add(t);
      announce(`${what} conversion${e.conversion.subid ? ` on sub-ID ${e.conversion.subid}` : ''}.`);
    },
    [accountId, queryClient, announce],
  );
  const { state } = useLiveEvents(accountId, onEvent);
  // Connected (or again): what changed before the stream's cursor is fetched once.
  useEffect(() => {
    if (state === 'live') void queryClient.invalidateQueries({ queryKey: activityKeys.conversions(accountId) });
  }, [state, accountId, queryClient]);
  return { state, fresh };
}

function Conversions() {
  const account = useAccount();
  const fmt = useFormat();
  const paging = useCursorPaging();
  const filters = conversionFiltersOf(paging.params);
  const list = useQuery(conversionsQuery(account.account_id, filters, { cursor: paging.cursor, page_size: paging.pageSize }));
  const { state, fresh } = useLiveConversions(account.account_id);
  const filtered = Object.keys(filters).length > 0;
  const sizeId = useId();
  const rows = list.data?.data ?? [];

  return (
    <Page
      title={TITLE}
      description={`Sales reported on your tracked links, newest first. Times in ${fmt.timeZone}.`}
      actions={
        <>
          <LiveBadge state={state} />
          <ExportDownload href={conversionsExportUrl(account.account_id, filters)} fallbackName="conversions.csv" />
        </>
      }
    >
      <Section title="Filters" description="Dates are UTC days of the sale, both included. The CSV holds every row of these filters.">
        <FilterForm key={paging.params.toString()} filters={filters} paging={paging} />
      </Section>
      <Section
        title="Conversion list"
        description={list.data ? `${filtered ? 'Filtered. ' : ''}Sorted by date, newest first.` : undefined}
        actions={list.isFetching && !list.isPending ? <span className="muted small">Updating…</span> : undefined}
      >
        {list.isPending ? (
          <Loading label="Loading conversions…" />
        ) : list.isError && !list.data ? (
          <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyConversions filtered={filtered} onClear={() => paging.setFilters({})} />
        ) : (
          <>
            {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
            <ConversionTable rows={rows} fresh={fresh} />
            <Pager
              label="conversions"
              paging={paging}
              page={list.data?.page ?? 1}
              nextCursor={list.data?.next_cursor ?? null}
              loading={list.isPlaceholderData}
              sizeId={sizeId}
            />
          </>
        )}
      </Section>
      {list.data && list.data.subid_rollup.length > 0 && <Rollup rows={list.data.subid_rollup} />}
    </Page>
  );
}

function EmptyConversions({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  if (filtered)
    return (
      <div className="empty">
        <p>No conversions match these filters.</p>
        <p>
          Widen the dates or{' '}
          <button type="button" className="link-button" onClick={onClear}>
            clear the filters
          </button>
          .
        </p>
      </div>
    );
  return (
    <div className="empty">
      <p>No conversions yet.</p>
      <p>
        A conversion appears here, live, when a merchant reports a sale on one of your tracked links. <Link to="/links">Create a tracked link</Link>, and{' '}
        <Link to="/settings/postback">set up a postback</Link> to have each sale sent to your server too.
      </p>
    </div>
  );
}

function FilterForm({ filters, paging }: { filters: ConversionFilters; paging: CursorPaging }) {
  const ids = { from: useId(), to: useId(), status: useId(), channel: useId(), subid: useId(), error: useId() };
  const [from, setFrom] = useState(filters.date_from ?? '');
  const [to, setTo] = useState(filters.date_to ?? '');
  const [status, setStatus] = useState<string>(filters.status ?? '');
  const [channel, setChannel] = useState<string>(filters.channel ?? '');
  const [subid, setSubid] = useState(filters.subid ?? '');
  const [errors, setErrors] = useState<ConversionFilterProblems>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = conversionFilterProblems(from, to, subid);
    setErrors(found);
    if (Object.keys(found).length) return;
    paging.setFilters({ date_from: from, date_to: to, status, channel, subid: subid.trim() });
  };
  const dirty = Object.keys(filters).length > 0;
  return (
    <form className="form form-inline filter-form" onSubmit={submit} noValidate aria-label="Conversion filters">
      <div className="field">
        <label htmlFor={ids.from}>From</label>
        <input id={ids.from} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={ids.to}>To</label>
        <input
          id={ids.to}
          type="date"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          aria-invalid={errors.to ? true : undefined}
          aria-describedby={errors.to ? `${ids.error}-to` : undefined}
        />
        {errors.to && (
          <p className="field-error" id={`${ids.error}-to`}>
            {errors.to}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={ids.status}>Status</label>
        <select id={ids.status} value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">All</option>
          {CONVERSION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_WORDS[s]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.channel}>Channel</label>
        <select id={ids.channel} value={channel} onChange={(e) => setChannel(e.target.value)}>
          <option value="">All</option>
          {CONVERSION_CHANNELS.map((c) => (
            <option key={c} value={c}>
              {CHANNEL_WORDS[c]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.subid}>Sub-ID</label>
        <input
          id={ids.subid}
          value={subid}
          onChange={(e) => setSubid(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          aria-invalid={errors.subid ? true : undefined}
          aria-describedby={errors.subid ? `${ids.error}-subid` : undefined}
        />
        {errors.subid && (
          <p className="field-error" id={`${ids.error}-subid`}>
            {errors.subid}
          </p>
        )}
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          Apply filters
        </button>
        {dirty && (
          <button type="button" className="button button-ghost" onClick={() => paging.setFilters({})}>
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}

function ConversionTable({ rows, fresh }: { rows: Conversion[]; fresh: Map<string, string> }) {
  const fmt = useFormat();
  return (
    <div className="table-wrap" role="region" aria-label="Table of conversions" tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col" aria-sort="descending">
              Date <span className="muted">(newest first)</span>
            </th>
            <th scope="col">Conversion</th>
            <th scope="col">Status</th>
            <th scope="col">Channel</th>
            <th scope="col">Sub-ID</th>
            <th scope="col">Merchant</th>
            <th scope="col" className="num">
              Sale
            </th>
            <th scope="col" className="num">
              Commission
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => {
            const mark = fresh.get(c.id);
            return (
              <tr key={c.id} className={mark ? 'row-fresh' : undefined} data-conversion={c.id}>
                <td className="nowrap">{fmt.dateTime(c.occurred_at)}</td>
                <td>
                  <Link to={`/conversions/${encodeURIComponent(c.id)}`} className="mono" aria-label={`Conversion ${c.id}, ${fmt.dateTime(c.occurred_at)}`}>
                    {c.id}
                  </Link>
                  {mark && <span className="tag tag-accent">{mark}</span>}
                  {c.source === 'ledger' && <p className="muted small">{c.reason ?? 'Booked by the network'}</p>}
                </td>
                <td>
                  <ConversionStatusPill status={c.status} reversed={c.reversed} />
                </td>
                <td>{CHANNEL_WORDS[c.channel ?? 'link'] ?? c.channel}</td>
                <td>{c.subid ? <span className="mono">{c.subid}</span> : <span className="muted">—</span>}</td>
                <td>{c.merchant ? c.merchant.name || `Merchant ${c.merchant.id}` : <span className="muted">—</span>}</td>
                <td className="num nowrap">{fmt.money(c.sale_amount, c.currency)}</td>
                <td className="num nowrap">{fmt.money(c.commission, c.currency)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Rollup({ rows }: { rows: SubidRollup[] }) {
  const fmt = useFormat();
  return (
    <Section title="By sub-ID" description="Every conversion of the filters, all pages.">
      <div className="table-wrap" role="region" aria-label="Table of conversions by sub-ID" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Sub-ID</th>
              <th scope="col" className="num">
                Conversions
              </th>
              <th scope="col" className="num">
                Commission
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.subid ?? ''}>
                <td>{r.subid ? <span className="mono">{r.subid}</span> : <span className="muted">No sub-ID</span>}</td>
                <td className="num">{fmt.number(r.conversions)}</td>
                <td className="num">
                  {Object.entries(r.commission).map(([currency, amount]) => (
                    <span key={currency} className="amount-line">
                      {fmt.money(amount, currency)}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
