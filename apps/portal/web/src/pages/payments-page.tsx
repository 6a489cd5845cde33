/**
 * Payments: the ledger's balance per currency, the next payout (what it would be now, its
 * threshold and schedule, the method by type and last 4) with "Request payment" for owners (or why
 * it cannot be asked for yet), the payment status as the spec defines it (approved not yet paid and
 * pending review, per currency and in USD), the payout history (status, amount, method, exchange
 * rates used, why one waits or failed) with each payout's ledger entries, and every ledger entry.
 */
import { useId, useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { isApiError } from '../api/client';
import { keys } from '../api/endpoints';
import {
  balanceEntriesQuery,
  balanceQuery,
  payoutEntriesQuery,
  payoutKeys,
  payoutsQuery,
  requestPayout,
  statementUrl,
  type AccountBalance,
  type BalanceEntry,
  type Payout,
} from '../api/payouts';
import type { MoneyAmount, PaymentStatus } from '../api/types';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading, Notice, StatusPill } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { entryInWords, holdInWords, methodInWords, payoutStatus } from '../lib/payouts';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';

const TITLE = 'Payments';

export function PaymentsPage() {
  return (
    <AccountGate title={TITLE}>
      <Payments />
    </AccountGate>
  );
}

function Payments() {
  const account = useAccount();
  const balance = useQuery(balanceQuery(account.account_id));
  return (
    <Page
      title={TITLE}
      description="What you have earned, what is still under review, and your payouts. Amounts are kept in their own currency until a payout converts them."
    >
      {balance.isPending ? (
        <Section title="Next payment">
          <Loading label="Loading the balance…" />
        </Section>
      ) : balance.isError ? (
        <Section title="Next payment">
          <ErrorNotice error={balance.error} onRetry={() => void balance.refetch()} />
        </Section>
      ) : (
        <>
          <Detail status={balance.data.payment_status} method={balance.data.next_payout.method} />
          <RequestPayment balance={balance.data} accountId={account.account_id} owner={account.role === 'owner'} />
        </>
      )}
      <PayoutHistory accountId={account.account_id} />
      <LedgerEntries accountId={account.account_id} />
    </Page>
  );
}

function CurrencyTable({ label, list, totalUsd }: { label: string; list: MoneyAmount[]; totalUsd: string }) {
  const fmt = useFormat();
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <th scope="col" className="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((m) => (
            <tr key={m.currency}>
              <td>{m.currency}</td>
              <td className="num">{fmt.money(m.amount, m.currency)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">All currencies, in USD (indicative)</th>
            <td className="num">≈ {fmt.money(totalUsd, 'USD')}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

function Detail({ status, method }: { status: PaymentStatus; method: AccountBalance['next_payout']['method'] }) {
  const fmt = useFormat();
  const next = status.next_payment;
  const approved = status.approved_unpaid;
  const pending = status.pending_review;
  return (
    <>
      <Section title="Next payment" description={`Paid in ${next.currency} once approved commission reaches the threshold and a payout method is set.`}>
        <dl className="summary-list">
          <div>
            <dt>Estimated date</dt>
            <dd>{next.estimated_date ? fmt.day(next.estimated_date) : 'Not scheduled'}</dd>
          </div>
          <div>
            <dt>Estimated amount</dt>
            <dd>{fmt.money(next.estimated_amount, next.currency)}</dd>
          </div>
          <div>
            <dt>Threshold</dt>
            <dd>
              {fmt.money(next.threshold, next.currency)}{' '}
              <StatusPill tone={next.threshold_reached ? 'success' : 'neutral'}>{next.threshold_reached ? 'Reached' : 'Not reached yet'}</StatusPill>
            </dd>
          </div>
          <div>
            <dt>Payout method</dt>
            <dd>{methodInWords(method)}</dd>
          </div>
        </dl>
        <p className="muted">
          {!method ? (
            <>
              No payout method yet: <Link to="/settings/payouts">add one in the payout settings</Link> so payments can be made.
            </>
          ) : next.estimated_date ? (
            'The estimate is the approved commission not yet paid, converted to the payout currency.'
          ) : next.threshold_reached ? (
            'The threshold is reached: the payment is scheduled once the account is approved for payouts.'
          ) : (
            `Payments start once approved commission reaches ${fmt.money(next.threshold, next.currency)}. Build links and promote approved programs to get there.`
          )}
        </p>
        {method && (
          <p className="small">
            <Link to="/settings/payouts">Change the payout method</Link>
          </p>
        )}
      </Section>

      <Section
        title="Approved, not yet paid"
        description="Your balance in the ledger, per currency: commission merchants have approved, less reversals and what was paid out."
      >
        {approved.by_currency.length ? (
          <CurrencyTable label="Approved, not yet paid, per currency" list={approved.by_currency} totalUsd={approved.total_usd} />
        ) : (
          <p className="empty">
            Nothing approved yet. Merchants approve sales after their return period; <Link to="/links">build links</Link> and watch your clicks and sales.
          </p>
        )}
      </Section>

      <Section
        title="Pending review"
        description={`Commission of the last ${pending.window_days} days that merchants have not decided yet. It may still be declined.`}
      >
        {pending.by_currency.length ? (
          <CurrencyTable label="Pending review, per currency" list={pending.by_currency} totalUsd={pending.total_usd} />
        ) : (
          <p className="empty">No sale is waiting for review. New sales appear here first, then move to approved or declined.</p>
        )}
      </Section>
      {status.currency_note && <p className="muted small">{status.currency_note}</p>}
    </>
  );
}

const REFUSALS: Record<string, string> = {
  no_payout_method: 'Set a payout method first',
  payout_in_progress: 'A payout is already on its way',
  payout_hold: 'Payouts are on hold',
  below_threshold: 'The available balance is below your threshold',
};

/** "Request payment" (owners): the whole available balance now, or why not yet. */
function RequestPayment({ balance, accountId, owner }: { balance: AccountBalance; accountId: string; owner: boolean }) {
  const fmt = useFormat();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const reasonId = useId();
  const next = balance.next_payout;
  const refused = next.request_refused;
  const [done, setDone] = useState<string | null>(null);
  const request = useMutation({
    mutationFn: () => requestPayout(accountId),
    onMutate: () => setDone(null),
    onSuccess: async (p) => {
      const message = `Payment requested: ${fmt.money(p.amount, p.currency)} to ${methodInWords(p.method)}. It is paid once the network approves it.`;
      setDone(message);
      announce(message);
      await Promise.all(
        [payoutKeys.balance(accountId), payoutKeys.payouts(accountId), payoutKeys.entries(accountId), keys.paymentStatus(accountId)].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      );
    },
  });
  const blocked = !!refused || request.isPending;
  return (
    <Section
      title="Request payment"
      description={`The whole available balance, every currency converted to ${next.currency} at the European Central Bank's rate, paid with a run the network approves.`}
    >
      <dl className="summary-list">
        <div>
          <dt>Available now</dt>
          <dd>{fmt.money(next.amount, next.currency)}</dd>
        </div>
        <div>
          <dt>Your threshold</dt>
          <dd>{fmt.money(next.threshold, next.currency)}</dd>
        </div>
        <div>
          <dt>Schedule</dt>
          <dd>{next.schedule === 'on_request' ? 'On request' : 'Monthly, with the network’s payout run'}</dd>
        </div>
        <div>
          <dt>Payout method</dt>
          <dd>{methodInWords(next.method)}</dd>
        </div>
      </dl>
      {next.holds.length > 0 && (
        <Notice tone="warning" title="Payouts wait for the network">
          <ul>
            {next.holds.map((h) => (
              <li key={h}>
                {holdInWords(h)}
                {h === 'method_changed' && next.method_hold_until ? ` (until ${fmt.dateTime(next.method_hold_until)})` : ''}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      {done && (
        <Notice tone="success" role="status">
          <p>{done}</p>
        </Notice>
      )}
      {request.isError && (
        <ErrorNotice error={request.error} title={isApiError(request.error) && request.error.status === 409 ? 'Payment not requested' : undefined} />
      )}
      {owner ? (
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            aria-disabled={blocked || undefined}
            aria-describedby={refused ? reasonId : undefined}
            data-pending={request.isPending || undefined}
            onClick={() => !blocked && request.mutate()}
          >
            Request payment
            {request.isPending && <span className="spinner" aria-hidden="true" />}
          </button>
          {refused && (
            <p id={reasonId} className="muted">
              {REFUSALS[refused.code] ?? 'Not available now'}: {refused.detail}{' '}
              {refused.code === 'no_payout_method' && <Link to="/settings/payouts">Payout settings</Link>}
            </p>
          )}
        </div>
      ) : (
        <p className="muted">Only owners of the account request payment.</p>
      )}
    </Section>
  );
}

function Rates({ fx }: { fx: Payout['fx'] }) {
  const fmt = useFormat();
  if (!fx.length) return <span className="muted">None (paid in its own currency)</span>;
  return (
    <ul className="plain-list">
      {fx.map((f) => (
        <li key={f.from}>
          {fmt.money(f.amount, f.from)} → {fmt.money(f.converted, f.to)} at {f.rate} {f.to} per {f.from} (ECB, {fmt.day(f.date)})
        </li>
      ))}
    </ul>
  );
}

function PayoutDetails({ p, accountId }: { p: Payout; accountId: string }) {
  const fmt = useFormat();
  return (
    <>
      {p.paid_at && <p>Paid {fmt.dateTime(p.paid_at)}</p>}
      {p.failure && (
        <p>
          Failed: {p.failure.message} <span className="muted small mono">({p.failure.code})</span>. The amount is back in your balance.
        </p>
      )}
      {p.hold && <p>Held: {p.hold.reasons.map(holdInWords).join('; ')}.</p>}
      {p.statement ? (
        <p>
          <a href={statementUrl(accountId, p.id)} download={`statement-${p.statement.number}.pdf`}>
            Statement {p.statement.number} (PDF)<span className="visually-hidden">, payout {p.id}</span>
          </a>
        </p>
      ) : (
        p.status === 'paid' && <p className="muted small">Statement: being issued.</p>
      )}
      {!p.paid_at && !p.failure && !p.hold && <p className="muted">—</p>}
    </>
  );
}

function PayoutEntries({ payout, entries }: { payout: Payout; entries: BalanceEntry[] | undefined }) {
  const fmt = useFormat();
  const mine = (entries ?? []).filter((e) => e.payout_id === payout.id);
  return (
    <details>
      <summary>
        Ledger entries<span className="visually-hidden"> of payout {payout.id}</span>
      </summary>
      {entries === undefined ? (
        <p className="muted small">Loading…</p>
      ) : mine.length ? (
        <ul className="plain-list">
          {mine.map((e) => (
            <li key={e.id}>
              {fmt.dateTime(e.created_at)}: {entryInWords(e.type)} {fmt.money(e.amount, e.currency)}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">None yet: a payout is booked when the network approves it.</p>
      )}
    </details>
  );
}

function PayoutHistory({ accountId }: { accountId: string }) {
  const fmt = useFormat();
  const list = useInfiniteQuery(payoutsQuery(accountId));
  const entries = useQuery(payoutEntriesQuery(accountId));
  const rows = list.data?.pages.flatMap((pg) => pg.data) ?? [];
  return (
    <Section title="Payouts" description="Newest first: what was paid, to which method, and at which exchange rates.">
      {list.isPending ? (
        <Loading label="Loading the payouts…" />
      ) : list.isError && !rows.length ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : !rows.length ? (
        <p className="empty">No payouts yet.</p>
      ) : (
        <>
          {entries.isError && <ErrorNotice error={entries.error} title="The ledger entries could not be loaded" onRetry={() => void entries.refetch()} />}
          <div className="table-wrap" role="region" aria-label="Table of payouts" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">Method</th>
                  <th scope="col">Exchange rates</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => {
                  const st = payoutStatus(p.status, !!p.hold);
                  return (
                    <tr key={p.id} data-payout={p.id}>
                      <td className="nowrap">
                        {fmt.dateTime(p.created_at)}
                        <p className="muted small mono">{p.id}</p>
                      </td>
                      <td>
                        <StatusPill tone={st.tone}>{st.label}</StatusPill>
                      </td>
                      <td className="num">{fmt.money(p.amount, p.currency)}</td>
                      <td>{methodInWords(p.method)}</td>
                      <td>
                        <Rates fx={p.fx} />
                      </td>
                      <td>
                        <PayoutDetails p={p} accountId={accountId} />
                        <PayoutEntries payout={p} entries={entries.data} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {list.isFetchNextPageError && <ErrorNotice error={list.error} onRetry={() => void list.fetchNextPage()} />}
          {list.hasNextPage && (
            <div className="load-more">
              <button
                type="button"
                className="button button-secondary"
                aria-disabled={list.isFetchingNextPage || undefined}
                onClick={() => !list.isFetchingNextPage && void list.fetchNextPage()}
              >
                {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
                <span className="visually-hidden"> payouts</span>
              </button>
            </div>
          )}
        </>
      )}
    </Section>
  );
}

function LedgerEntries({ accountId }: { accountId: string }) {
  const fmt = useFormat();
  const list = useInfiniteQuery(balanceEntriesQuery(accountId));
  const rows = list.data?.pages.flatMap((pg) => pg.data) ?? [];
  return (
    <Section
      title="Balance entries"
      description="Every change of the balance, newest first: commission approved or reversed, corrections, payouts and returned payouts."
    >
      {list.isPending ? (
        <Loading label="Loading the balance entries…" />
      ) : list.isError && !rows.length ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : !rows.length ? (
        <p className="empty">No entries yet: approved commission appears here first.</p>
      ) : (
        <>
          <div className="table-wrap" role="region" aria-label="Table of balance entries" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Entry</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col">For</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => (
                  <tr key={e.id} data-entry={e.id}>
                    <td className="nowrap">{fmt.dateTime(e.created_at)}</td>
                    <td>
                      {entryInWords(e.type)}
                      {e.reason && <p className="muted small">{e.reason}</p>}
                    </td>
                    <td className="num">{fmt.money(e.amount, e.currency)}</td>
                    <td>
                      {e.conversion_id ? (
                        <Link to={`/conversions/${encodeURIComponent(e.conversion_id)}`}>
                          Conversion <span className="mono">{e.conversion_id}</span>
                        </Link>
                      ) : e.payout_id ? (
                        <>
                          Payout <span className="mono">{e.payout_id}</span>
                        </>
                      ) : (
                        <span className="muted">—</span>
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
                aria-disabled={list.isFetchingNextPage || undefined}
                onClick={() => !list.isFetchingNextPage && void list.fetchNextPage()}
              >
                {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
                <span className="visually-hidden"> balance entries</span>
              </button>
            </div>
          )}
        </>
      )}
    </Section>
  );
}
