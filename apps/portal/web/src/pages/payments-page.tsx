/**
 * Payments: the payment status as the spec defines it (GET /payment-status/), in full: approved
 * commission not yet paid and commission pending review (last 180 days), per currency and in USD;
 * the next payment estimate with its threshold; the payout method (a bank account by its last 4
 * digits only). The dashboard shows a summary of the same answer.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { paymentStatusQuery } from '../api/endpoints';
import type { MoneyAmount, PaymentStatus } from '../api/types';
import { ErrorNotice, Loading, StatusPill } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
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
  const status = useQuery(paymentStatusQuery(account.account_id));
  return (
    <Page
      title={TITLE}
      description="What you have earned, what is still under review, and when the next payment is due. Amounts are kept in their own currency."
    >
      {status.isPending ? (
        <Section title="Payment status">
          <Loading label="Loading payment status…" />
        </Section>
      ) : status.isError ? (
        <Section title="Payment status">
          <ErrorNotice error={status.error} onRetry={() => void status.refetch()} />
        </Section>
      ) : (
        <Detail status={status.data} />
      )}
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

const METHODS: Record<string, string> = { bank_account: 'Bank account', paypal: 'PayPal', none: 'None yet' };

function Detail({ status }: { status: PaymentStatus }) {
  const fmt = useFormat();
  const next = status.next_payment;
  const method = status.payment_method;
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
            <dd>
              {METHODS[method.type] ?? method.type}
              {method.last4 ? ` ending in ${method.last4}` : ''}
            </dd>
          </div>
        </dl>
        <p className="muted">
          {method.type === 'none' ? (
            <>
              No payout method yet: <Link to="/settings/account">add one in the account settings</Link> so payments can be made.
            </>
          ) : next.estimated_date ? (
            'The estimate is the approved commission not yet paid, converted to the payout currency.'
          ) : next.threshold_reached ? (
            'The threshold is reached: the payment is scheduled once the account is approved for payouts.'
          ) : (
            `Payments start once approved commission reaches ${fmt.money(next.threshold, next.currency)}. Build links and promote approved programs to get there.`
          )}
        </p>
        {method.type !== 'none' && (
          <p className="small">
            <Link to="/settings/account">Change the payout method</Link>
          </p>
        )}
      </Section>

      <Section title="Approved, not yet paid" description="Commission merchants have approved, per currency, to be paid with the next payments.">
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
