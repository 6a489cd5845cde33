import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { accountQuery, paymentStatusQuery } from '../api/endpoints';
import type { Account, MoneyAmount, PaymentStatus } from '../api/types';
import { ErrorNotice, Loading, Notice, StatusPill, words, type PillTone } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';

export function DashboardPage() {
  return (
    <AccountGate title="Dashboard">
      <Dashboard />
    </AccountGate>
  );
}

const REVIEW = new Set(['pending', 'provisional', 'under_review', 'claimed']);

export function statusOf(status: string): { label: string; tone: PillTone } {
  if (status === 'active') return { label: 'Active', tone: 'success' };
  if (REVIEW.has(status)) return { label: 'Under review', tone: 'warning' };
  if (status === 'inactive') return { label: 'Inactive', tone: 'danger' };
  return { label: words(status), tone: 'neutral' };
}

function StatusBanner({ account }: { account: Account }) {
  if (REVIEW.has(account.status)) {
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

function Dashboard() {
  const current = useAccount();
  const account = useQuery(accountQuery(current.account_id));
  const payments = useQuery(paymentStatusQuery(current.account_id));
  const name = account.data?.name ?? current.name;
  const status = statusOf(account.data?.status ?? current.status);

  return (
    <Page
      title="Dashboard"
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

      <Section title="Payments" description="Commission in each currency; indicative totals in USD.">
        {payments.isPending ? (
          <Loading label="Loading payment status…" />
        ) : payments.isError ? (
          <ErrorNotice error={payments.error} onRetry={() => void payments.refetch()} />
        ) : (
          <Payments status={payments.data} />
        )}
      </Section>

      <Section title="Next steps">
        <ul className="next-steps">
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
  const method = status.payment_method;
  return (
    <div className="stat-grid">
      <div className="stat">
        <h3>Approved, not yet paid</h3>
        <Amounts list={status.approved_unpaid.by_currency} empty={fmt.money('0', next.currency)} />
        <p className="muted small">≈ {fmt.money(status.approved_unpaid.total_usd, 'USD')}</p>
      </div>
      <div className="stat">
        <h3>Pending review</h3>
        <Amounts list={status.pending_review.by_currency} empty={fmt.money('0', next.currency)} />
        <p className="muted small">
          Last {status.pending_review.window_days} days · ≈ {fmt.money(status.pending_review.total_usd, 'USD')}
        </p>
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
            <p className="muted small">
              {method.type === 'none'
                ? 'Add a payout method in the account settings.'
                : next.threshold_reached
                  ? 'Scheduled once the account is approved.'
                  : `Payments start at ${fmt.money(next.threshold, next.currency)}.`}
            </p>
          </>
        )}
      </div>
      <div className="stat">
        <h3>Payout method</h3>
        <p className="amount-empty">
          {method.type === 'bank_account' ? 'Bank account' : method.type === 'paypal' ? 'PayPal' : 'None yet'}
          {method.last4 ? ` ···· ${method.last4}` : ''}
        </p>
        <p className="muted small">
          <Link to="/settings/account">Change in account settings</Link>
        </p>
      </div>
      {status.currency_note && <p className="muted small stat-note">{status.currency_note}</p>}
    </div>
  );
}
