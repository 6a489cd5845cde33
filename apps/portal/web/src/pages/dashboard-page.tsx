import { lazy, Suspense, useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { activityKeys, conversionsQuery, type Conversion } from '../api/activity';
import { overviewKey, overviewQuery, topQuery, type Overview, type OverviewRange, type OverviewRow, type Sums } from '../api/dashboard';
import { accountQuery, paymentStatusQuery } from '../api/endpoints';
import type { Account, MoneyAmount, PaymentStatus } from '../api/types';
import { ErrorNotice, Loading, Notice, StatusPill, words, type PillTone } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat, type Formatters } from '../lib/format';
import { isDay, PRESETS, presetRange, rangeProblem, todayIn, type PresetId } from '../lib/ranges';
import { LiveBadge, useLiveEvents, type SaleEvent } from '../lib/live';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';
import { LinksNeedingAttention } from './links-attention';
import { ChannelSplitSection } from './dashboard-channels';
import { changeOf, percent, periodLabel, shortUrl, statusOf, sumsInWords, underReview } from './dashboard-format';
import '../styles/dashboard.css';

const TrendChart = lazy(async () => ({ default: (await import('../components/trend-chart')).TrendChart }));

export function DashboardPage() {
  return (
    <AccountGate title="Dashboard">
      <Dashboard />
    </AccountGate>
  );
}

function StatusBanner({ account }: { account: Account }) {
  if (underReview(account.status)) {
    return (
      <Notice tone="warning" title="Your account is under review">
        <p>
          The network reviews accounts before payouts. Links and clicks already count, and you can set up your postback, keys and team meanwhile; we will mail
          you when the review is done.
        </p>
      </Notice>
    );
  }
  if (account.status === 'inactive') {
    return (
      <Notice tone="danger" title="This account is inactive">
        <p>Its links and credentials do not work. Contact the network to reactivate it.</p>
      </Notice>
    );
  }
  return null;
}

/** The range in the URL: `?range=<preset>` or `?from=&to=` (custom); default the last 30 days. */
function useRange(timeZone: string) {
  const [params, setParams] = useSearchParams();
  const today = todayIn(timeZone);
  const from = params.get('from');
  const to = params.get('to');
  const custom = isDay(from) && isDay(to) && !rangeProblem(from, to);
  const preset = (PRESETS.find((p) => p.id === params.get('range'))?.id ?? '30d') as PresetId;
  const range = custom ? { date_from: from, date_to: to } : presetRange(preset, today);
  return {
    range,
    preset: custom ? null : preset,
    choosePreset: (id: PresetId) => setParams({ range: id }, { replace: true }),
    chooseDays: (f: string, t: string) => setParams({ from: f, to: t }, { replace: true }),
  };
}

function Dashboard() {
  const current = useAccount();
  const fmt = useFormat();
  const account = useQuery(accountQuery(current.account_id));
  const name = account.data?.name ?? current.name;
  const status = statusOf(account.data?.status ?? current.status);
  // The account's zone: its calendar days are the dashboard's (the browser's until the account is read).
  const timeZone = account.data?.timezone ?? fmt.timeZone;
  const { range, preset, choosePreset, chooseDays } = useRange(timeZone);
  const overview = useQuery({ ...overviewQuery(current.account_id, { ...range, timezone: timeZone }), enabled: !!account.data || account.isError });
  const live = useLiveDashboard(current.account_id);

  return (
    <Page
      title="Dashboard"
      actions={<LiveBadge state={live.state} />}
      description={
        <>
          {name} <StatusPill tone={status.tone}>{status.label}</StatusPill>
        </>
      }
    >
      {account.isError ? (
        <ErrorNotice error={account.error} onRetry={() => void account.refetch()} />
      ) : account.data ? (
        <StatusBanner account={account.data} />
      ) : null}

      <RangePicker preset={preset} range={range} onPreset={choosePreset} onDays={chooseDays} />

      {overview.isPending ? (
        <Loading label="Loading your numbers…" lines={6} />
      ) : overview.isError ? (
        <ErrorNotice error={overview.error} onRetry={() => void overview.refetch()} />
      ) : (
        <div className="overview" aria-busy={overview.isFetching || undefined} data-stale={overview.isPlaceholderData || undefined}>
          <Kpis data={overview.data} />
          {overview.data.totals.clicks === 0 && overview.data.totals.conversions.total === 0 ? (
            <FirstSteps hadBefore={overview.data.previous.totals.clicks > 0 || overview.data.previous.totals.conversions.total > 0} />
          ) : (
            <>
              <Trend data={overview.data} />
              <TopLists accountId={current.account_id} range={{ ...range, timezone: timeZone }} />
              <ChannelSplitSection accountId={current.account_id} range={{ ...range, timezone: timeZone }} />
            </>
          )}
          <p className="muted small">
            Days are calendar days in {overview.data.timezone}. Clicks exclude automated traffic; commission in other currencies is converted to{' '}
            {overview.data.payout_currency} at indicative rates.
            {overview.data.as_of ? <> Every sale and status change up to {fmt.dateTime(overview.data.as_of)} is counted.</> : null}
          </p>
        </div>
      )}

      <LinksNeedingAttention accountId={current.account_id} />
      <LatestConversions accountId={current.account_id} fresh={live.fresh} />

      <PaymentsSection accountId={current.account_id} />

      <Section title="Next steps">
        <ul className="next-steps">
          <li>
            <Link to="/products">Find products to promote</Link>
            <p className="muted">Every product link is already tracked to you; copy it or its QR code.</p>
          </li>
          <li>
            <Link to="/settings/postback">Configure your postback</Link>
            <p className="muted">Get each sale sent to your server as it happens, signed.</p>
          </li>
          <li>
            <Link to="/settings/keys">Issue an API key</Link>
            <p className="muted">Search products, build links and read reports from your code.</p>
          </li>
          <li>
            <Link to="/settings/team">Invite your team</Link>
            <p className="muted">Developers manage keys and postbacks; analysts read.</p>
          </li>
        </ul>
      </Section>
    </Page>
  );
}

/**
 * The events stream keeps the numbers current: each sale event refetches the overview and the
 * latest conversions (once per burst), and so does every (re)connection, catching up on what
 * happened while the stream was away.
 */
function useLiveDashboard(accountId: string) {
  const queryClient = useQueryClient();
  const [fresh, setFresh] = useState<ReadonlySet<string>>(() => new Set());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refresh = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      void queryClient.invalidateQueries({ queryKey: overviewKey(accountId) });
      void queryClient.invalidateQueries({ queryKey: activityKeys.conversions(accountId) });
    }, 150);
  }, [queryClient, accountId]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onEvent = useCallback(
    (e: SaleEvent) => {
      setFresh((s) => new Set(s).add(e.conversion.id));
      refresh();
    },
    [refresh],
  );
  const { state } = useLiveEvents(accountId, onEvent);
  useEffect(() => {
    if (state === 'live') refresh();
  }, [state, refresh]);
  return { state, fresh };
}

const STATUS_TONES: Record<string, PillTone> = { approved: 'success', pending: 'warning', declined: 'danger' };

function LatestConversions({ accountId, fresh }: { accountId: string; fresh: ReadonlySet<string> }) {
  const fmt = useFormat();
  const latest = useQuery(conversionsQuery(accountId, {}, { page_size: 5 }));
  return (
    <Section
      title="Latest conversions"
      description="New sales and status changes appear here as merchants report them."
      actions={
        <Link className="button button-secondary button-small" to="/conversions">
          All conversions
        </Link>
      }
    >
      {latest.isPending ? (
        <Loading label="Loading the latest conversions…" />
      ) : latest.isError ? (
        <ErrorNotice error={latest.error} onRetry={() => void latest.refetch()} />
      ) : latest.data.data.length === 0 ? (
        <p className="muted">No conversions yet: they appear here the moment a merchant reports a sale on one of your links.</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Latest conversions, as a table">
          <table className="table table-compact">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Merchant</th>
                <th scope="col">Sub-ID</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Commission
                </th>
              </tr>
            </thead>
            <tbody>
              {latest.data.data.map((c: Conversion) => (
                <tr key={c.id} data-conversion={c.id} data-fresh={fresh.has(c.id) || undefined}>
                  <th scope="row">
                    <Link to={`/conversions/${encodeURIComponent(c.id)}`}>{fmt.dateTime(c.occurred_at)}</Link>
                    {fresh.has(c.id) && <span className="fresh-mark"> · just now</span>}
                  </th>
                  <td>{c.merchant?.name || (c.source === 'ledger' ? 'Adjustment' : '—')}</td>
                  <td>{c.subid ? <code>{c.subid}</code> : <span className="muted">—</span>}</td>
                  <td>
                    <StatusPill tone={STATUS_TONES[c.status] ?? 'neutral'}>{words(c.status)}</StatusPill>
                  </td>
                  <td className="num">{fmt.money(c.commission, c.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

/** The top lists, loaded apart from the totals (they cost a cell per sub-ID, program and link). */
function TopLists({ accountId, range }: { accountId: string; range: OverviewRange }) {
  const top = useQuery(topQuery(accountId, range));
  if (top.isPending) return <Loading label="Loading the top sub-IDs, programs and links…" lines={4} />;
  if (top.isError) return <ErrorNotice title="The top lists could not be loaded" error={top.error} onRetry={() => void top.refetch()} />;
  return (
    <div className="top-grid" data-stale={top.isPlaceholderData || undefined}>
      <TopTable
        title="Top sub-IDs"
        rows={top.data.subids}
        head="Sub-ID"
        cell={(r) => (r.subid ? <code>{r.subid}</code> : <span className="muted">No sub-ID</span>)}
        keyOf={(r) => r.subid ?? ''}
      />
      <TopTable
        title="Top programs"
        rows={top.data.programs}
        head="Program"
        cell={(r) =>
          r.merchant ? (
            <span className="top-link">
              <span>{r.merchant.name || `Merchant ${r.merchant.id}`}</span>
              {r.program_id !== null && <span className="muted small">Program {r.program_id}</span>}
            </span>
          ) : (
            <span className="muted">No program (adjustments)</span>
          )
        }
        keyOf={(r) => `${r.program_id}:${r.merchant?.id}`}
      />
      <TopTable
        title="Top links"
        rows={top.data.links}
        head="Link"
        cell={(r) => (
          <span className="top-link">
            <span className="top-link-url" title={r.landing_url ?? undefined}>
              {r.landing_url ? shortUrl(r.landing_url) : r.link_id}
            </span>
            <span className="muted small">
              {r.merchant?.name ?? ''}
              {r.subid ? ` · ${r.subid}` : ''}
            </span>
          </span>
        )}
        keyOf={(r) => r.link_id}
      />
    </div>
  );
}

function RangePicker({
  preset,
  range,
  onPreset,
  onDays,
}: {
  preset: PresetId | null;
  range: { date_from: string; date_to: string };
  onPreset: (id: PresetId) => void;
  onDays: (from: string, to: string) => void;
}) {
  const fromId = useId();
  const toId = useId();
  const errorId = useId();
  const [from, setFrom] = useState(range.date_from);
  const [to, setTo] = useState(range.date_to);
  const [problem, setProblem] = useState<string | null>(null);
  const [shown, setShown] = useState(`${range.date_from}/${range.date_to}`);
  // The inputs follow a preset chosen meanwhile.
  if (shown !== `${range.date_from}/${range.date_to}`) {
    setShown(`${range.date_from}/${range.date_to}`);
    setFrom(range.date_from);
    setTo(range.date_to);
    setProblem(null);
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const p = rangeProblem(from, to);
    setProblem(p);
    if (!p) onDays(from, to);
  };
  return (
    <div className="range-picker">
      <div className="segmented" role="group" aria-label="Date range">
        {PRESETS.map((p) => (
          <button key={p.id} type="button" className="segment" aria-pressed={preset === p.id} onClick={() => onPreset(p.id)}>
            {p.label}
          </button>
        ))}
      </div>
      <form className="range-custom" onSubmit={submit} noValidate>
        <div className="field-inline">
          <label htmlFor={fromId}>From</label>
          <input
            id={fromId}
            type="date"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            aria-invalid={!!problem || undefined}
            aria-describedby={problem ? errorId : undefined}
          />
        </div>
        <div className="field-inline">
          <label htmlFor={toId}>To</label>
          <input
            id={toId}
            type="date"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            aria-invalid={!!problem || undefined}
            aria-describedby={problem ? errorId : undefined}
          />
        </div>
        <button type="submit" className="button button-secondary button-small">
          Show range
        </button>
        {problem && (
          <p id={errorId} className="field-error" role="alert">
            {problem}
          </p>
        )}
      </form>
    </div>
  );
}

/** "Up 12.5% from 1,204" in words and an arrow, so colour is never the only sign. */
function Change({ current, previous, shown }: { current: string | number; previous: string | number; shown: string }) {
  const change = changeOf(current, previous);
  if (change === null) return <p className="kpi-change muted small">No earlier value to compare (previous period: {shown})</p>;
  const { sign, text } = change;
  return (
    <p className={`kpi-change small kpi-${sign}`}>
      <span aria-hidden="true">{sign === 'up' ? '▲ ' : sign === 'down' ? '▼ ' : '= '}</span>
      {text} <span className="muted">from {shown}</span>
    </p>
  );
}

function MoneyList({ sums, fmt, empty }: { sums: Sums; fmt: Formatters; empty: string }) {
  const entries = Object.entries(sums);
  if (!entries.length) return <p className="kpi-value">{empty}</p>;
  return (
    <ul className="kpi-money">
      {entries.map(([cur, v]) => (
        <li key={cur} className="kpi-value">
          {fmt.money(v, cur)}
        </li>
      ))}
    </ul>
  );
}

function Kpis({ data }: { data: Overview }) {
  const fmt = useFormat();
  const t = data.totals;
  const p = data.previous.totals;
  const payout = t.earned_in_payout_currency;
  const prevPayout = p.earned_in_payout_currency;
  const zero = fmt.money('0', data.payout_currency);
  return (
    <section className="kpis" aria-label={`Totals from ${fmt.day(data.date_from)} to ${fmt.day(data.date_to)}`}>
      <div className="kpi">
        <h2 className="kpi-label">Clicks</h2>
        <p className="kpi-value" data-kpi="clicks">
          {fmt.number(t.clicks)}
        </p>
        <Change current={t.clicks} previous={p.clicks} shown={fmt.number(p.clicks)} />
      </div>
      <div className="kpi">
        <h2 className="kpi-label">Conversions</h2>
        <p className="kpi-value" data-kpi="conversions">
          {fmt.number(t.conversions.total)}
        </p>
        <p className="small muted" data-kpi="conversion-statuses">
          {fmt.number(t.conversions.approved)} approved · {fmt.number(t.conversions.pending)} pending · {fmt.number(t.conversions.declined)} declined
        </p>
        <Change current={t.conversions.total} previous={p.conversions.total} shown={fmt.number(p.conversions.total)} />
      </div>
      <div className="kpi">
        <h2 className="kpi-label">Commission earned</h2>
        <div data-kpi="earned">
          <MoneyList sums={t.commission.earned} fmt={fmt} empty={zero} />
        </div>
        {payout.approximate && (
          <p className="small muted" data-kpi="earned-payout">
            ≈ {fmt.money(payout.amount, payout.currency)} in total
          </p>
        )}
        <Change current={payout.amount} previous={prevPayout.amount} shown={fmt.money(prevPayout.amount, prevPayout.currency)} />
        {Object.keys(t.commission.declined).length > 0 && (
          <p className="small muted">
            Declined:{' '}
            {Object.entries(t.commission.declined)
              .map(([cur, v]) => fmt.money(v, cur))
              .join(', ')}
          </p>
        )}
      </div>
      <div className="kpi">
        <h2 className="kpi-label">Conversion rate</h2>
        <p className="kpi-value" data-kpi="conversion-rate">
          {percent(t.conversion_rate)}
        </p>
        {t.conversion_rate !== null && p.conversion_rate !== null ? (
          <Change current={t.conversion_rate} previous={p.conversion_rate} shown={percent(p.conversion_rate)} />
        ) : (
          <p className="kpi-change muted small">Approved and pending conversions per click</p>
        )}
      </div>
      <div className="kpi">
        <h2 className="kpi-label">EPC</h2>
        <div data-kpi="epc">
          <MoneyList sums={t.epc} fmt={fmt} empty="—" />
        </div>
        <p className="kpi-change muted small">Earnings per click</p>
      </div>
    </section>
  );
}

function Trend({ data }: { data: Overview }) {
  const fmt = useFormat();
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const points = useMemo(
    () => data.series.map((p) => ({ label: periodLabel(p.period, data.bucket, fmt), clicks: p.clicks, conversions: p.conversions })),
    [data, fmt],
  );
  const per = { day: 'day', week: 'week', month: 'month' }[data.bucket];
  const description = `Clicks and conversions per ${per} from ${fmt.day(data.date_from)} to ${fmt.day(data.date_to)}: ${fmt.number(data.totals.clicks)} clicks, ${fmt.number(data.totals.conversions.total)} conversions. The same numbers are in the table view.`;
  return (
    <Section
      title={`Per ${per}`}
      actions={
        <div className="segmented" role="group" aria-label="Show as">
          <button type="button" className="segment" aria-pressed={view === 'chart'} onClick={() => setView('chart')}>
            Chart
          </button>
          <button type="button" className="segment" aria-pressed={view === 'table'} onClick={() => setView('table')}>
            Table
          </button>
        </div>
      }
    >
      {view === 'chart' ? (
        <Suspense fallback={<Loading label="Drawing the chart…" lines={4} />}>
          <TrendChart points={points} description={description} />
        </Suspense>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={`Per ${per}, as a table`}>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">{words(per)}</th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col" className="num">
                  Conversions
                </th>
                <th scope="col" className="num">
                  Conversion rate
                </th>
                <th scope="col" className="num">
                  Earned
                </th>
              </tr>
            </thead>
            <tbody>
              {data.series.map((p, i) => (
                <tr key={p.period}>
                  <th scope="row">{points[i]!.label}</th>
                  <td className="num">{fmt.number(p.clicks)}</td>
                  <td className="num">{fmt.number(p.conversions)}</td>
                  <td className="num">{percent(p.conversion_rate)}</td>
                  <td className="num">{sumsInWords(p.earned, fmt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function TopTable<R extends OverviewRow>({
  title,
  rows,
  head,
  cell,
  keyOf,
}: {
  title: string;
  rows: R[];
  head: string;
  cell: (r: R) => ReactNode;
  keyOf: (r: R) => string;
}) {
  const fmt = useFormat();
  return (
    <Section title={title}>
      {rows.length === 0 ? (
        <p className="muted">Nothing in this range yet.</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={title}>
          <table className="table table-compact">
            <thead>
              <tr>
                <th scope="col">{head}</th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col" className="num">
                  Conv.
                </th>
                <th scope="col" className="num">
                  Earned
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={keyOf(r)}>
                  <th scope="row">{cell(r)}</th>
                  <td className="num">{fmt.number(r.clicks)}</td>
                  <td className="num">{fmt.number(r.conversions)}</td>
                  <td className="num">{sumsInWords(r.earned, fmt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

function FirstSteps({ hadBefore }: { hadBefore: boolean }) {
  return (
    <Notice tone="info" title={hadBefore ? 'Nothing in this range' : 'No clicks yet'}>
      {hadBefore ? (
        <p>There were clicks or sales before this range: choose a longer one above.</p>
      ) : (
        <p>
          Numbers appear here as soon as someone follows one of your links. <Link to="/products">Find a product</Link> or <Link to="/links">build a link</Link>{' '}
          to a program you joined, and share it.
        </p>
      )}
    </Notice>
  );
}

function PaymentsSection({ accountId }: { accountId: string }) {
  const payments = useQuery(paymentStatusQuery(accountId));
  return (
    <Section
      title="Payments"
      description="Commission in each currency; indicative totals in USD."
      actions={
        <Link className="button button-secondary button-small" to="/payments">
          Payment details
        </Link>
      }
    >
      {payments.isPending ? (
        <Loading label="Loading payment status…" />
      ) : payments.isError ? (
        <ErrorNotice error={payments.error} onRetry={() => void payments.refetch()} />
      ) : (
        <Payments status={payments.data} />
      )}
    </Section>
  );
}

function Amounts({ list, empty }: { list: MoneyAmount[]; empty: string }) {
  const fmt = useFormat();
  if (!list.length) return <p className="amount-empty">{empty}</p>;
  return (
    <ul className="amounts">
      {list.map((m) => (
        <li key={m.currency} className="amount">
          {fmt.money(m.amount, m.currency)}
        </li>
      ))}
    </ul>
  );
}

function Payments({ status }: { status: PaymentStatus }) {
  const fmt = useFormat();
  const next = status.next_payment;
  return (
    <div className="stat-grid">
      <div className="stat">
        <h3>Approved, not yet paid</h3>
        <Amounts list={status.approved_unpaid.by_currency} empty={fmt.money('0', next.currency)} />
      </div>
      <div className="stat">
        <h3>Pending review</h3>
        <Amounts list={status.pending_review.by_currency} empty={fmt.money('0', next.currency)} />
      </div>
      <div className="stat">
        <h3>Next payment</h3>
        {next.estimated_date ? (
          <>
            <p className="amount">{fmt.money(next.estimated_amount, next.currency)}</p>
            <p className="muted small">Estimated for {fmt.day(next.estimated_date)}</p>
          </>
        ) : (
          <>
            <p className="amount-empty">Not scheduled</p>
            <p className="muted small">{next.threshold_reached ? 'See payment details.' : `Payments start at ${fmt.money(next.threshold, next.currency)}.`}</p>
          </>
        )}
      </div>
    </div>
  );
}
