/** A conversion's own page: what it is, its money, where it came from, and its history (every status change), updated live. */
import { useCallback, useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { activityKeys, conversionQuery, type ConversionDetail, type ConversionEvent } from '../api/activity';
import { isApiError } from '../api/client';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { LiveBadge, useLiveEvents, type SaleEvent } from '../lib/live';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';
import { ConversionStatusPill } from './conversions-page';

const TITLE = 'Conversion';

export function ConversionPage() {
  return (
    <AccountGate title={TITLE}>
      <ConversionView />
    </AccountGate>
  );
}

const EVENT_WORDS: Record<ConversionEvent['event'], string> = {
  created: 'Reported by the merchant',
  approved: 'Approved',
  declined: 'Declined',
  reversed: 'Reversed (declined after approval)',
};

function ConversionView() {
  const account = useAccount();
  const { id = '' } = useParams();
  const fmt = useFormat();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const conversion = useQuery(conversionQuery(account.account_id, id));
  const onEvent = useCallback(
    (e: SaleEvent) => {
      if (e.conversion.id !== id) return;
      void queryClient.invalidateQueries({ queryKey: activityKeys.conversion(account.account_id, id) });
      void queryClient.invalidateQueries({ queryKey: activityKeys.conversions(account.account_id) });
      announce(`This conversion changed: ${e.event}.`);
    },
    [id, account.account_id, queryClient, announce],
  );
  const { state } = useLiveEvents(account.account_id, onEvent);
  useEffect(() => {
    if (state === 'live') void queryClient.invalidateQueries({ queryKey: activityKeys.conversion(account.account_id, id) });
  }, [state, account.account_id, id, queryClient]);
  const notFound = isApiError(conversion.error) && conversion.error.status === 404;

  return (
    <Page
      title={TITLE}
      eyebrow="Conversions"
      docTitle={`${TITLE} ${id}`}
      description={<span className="mono">{id}</span>}
      actions={
        <>
          <LiveBadge state={state} />
          <Link className="button button-secondary" to="/conversions">
            All conversions
          </Link>
        </>
      }
    >
      {conversion.isPending ? (
        <Section title="Details">
          <Loading label="Loading the conversion…" />
        </Section>
      ) : conversion.isError ? (
        <Section title="Details">
          <ErrorNotice error={conversion.error} onRetry={() => void conversion.refetch()} />
          {notFound && (
            <p>
              It is not a conversion of this account. <Link to="/conversions">See the account&apos;s conversions</Link>.
            </p>
          )}
        </Section>
      ) : (
        <>
          <Details c={conversion.data} />
          <Section title="History" description={`Every status change, oldest first. Times in ${fmt.timeZone}.`}>
            <History c={conversion.data} />
          </Section>
        </>
      )}
    </Page>
  );
}

function Details({ c }: { c: ConversionDetail }) {
  const fmt = useFormat();
  const dash = <span className="muted">—</span>;
  return (
    <Section title="Details">
      <dl className="summary-list">
        <div>
          <dt>Status</dt>
          <dd>
            <ConversionStatusPill status={c.status} reversed={c.reversed} />
          </dd>
        </div>
        <div>
          <dt>Commission</dt>
          <dd className="strong">{fmt.money(c.commission, c.currency)}</dd>
        </div>
        <div>
          <dt>Sale amount</dt>
          <dd>{fmt.money(c.sale_amount, c.currency)}</dd>
        </div>
        <div>
          <dt>Merchant</dt>
          <dd>{c.merchant ? `${c.merchant.name || 'Merchant'} (${c.merchant.id})` : dash}</dd>
        </div>
        <div>
          <dt>Program</dt>
          <dd>{c.program_id ?? dash}</dd>
        </div>
        <div>
          <dt>Sub-ID</dt>
          <dd>{c.subid ? <span className="mono">{c.subid}</span> : dash}</dd>
        </div>
        <div>
          <dt>Link</dt>
          <dd>
            {c.deeplink_id ? (
              <Link to={`/clicks?deeplink_id=${encodeURIComponent(c.deeplink_id)}`} className="mono">
                {c.deeplink_id}
              </Link>
            ) : (
              dash
            )}
          </dd>
        </div>
        <div>
          <dt>Click</dt>
          <dd>{c.click_id ? <span className="mono small">{c.click_id}</span> : dash}</dd>
        </div>
        <div>
          <dt>Sale time</dt>
          <dd>{fmt.dateTime(c.occurred_at)}</dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>{fmt.dateTime(c.updated_at)}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd>{c.source === 'ledger' ? `Booked by the network${c.reason ? `: ${c.reason}` : ''}` : 'Reported by the merchant'}</dd>
        </div>
      </dl>
    </Section>
  );
}

function History({ c }: { c: ConversionDetail }) {
  const fmt = useFormat();
  if (!c.events.length)
    return <p className="empty">{c.source === 'ledger' ? 'Booked by the network as approved: it has no status changes.' : 'No status change recorded yet.'}</p>;
  return (
    <ol className="timeline" aria-label="Status changes">
      {c.events.map((e) => (
        <li key={e.id} className="timeline-item">
          <p className="strong">{EVENT_WORDS[e.event] ?? e.event}</p>
          <p className="muted small">
            <time dateTime={e.created_at}>{fmt.dateTime(e.created_at)}</time> · status after:{' '}
            <ConversionStatusPill status={e.status} reversed={e.event === 'reversed'} />
          </p>
          <p className="muted small">
            Event <span className="mono">{e.type}</span> · id <span className="mono">{e.id}</span>
            {e.logged_at ? '' : ' · reaching the events feed'}
          </p>
        </li>
      ))}
    </ol>
  );
}
