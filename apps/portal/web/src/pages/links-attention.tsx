/**
 * The dashboard's "Links needing attention" (docs/decisions/0064-link-health.md): the account's
 * links whose target cannot earn (out of stock, program paused or ended, no longer approved,
 * unreachable) that lost clicks, most first, as of the last health pass. Nothing when none did.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import { ErrorNotice, StatusPill } from '../components/feedback';
import { Section } from '../components/page';
import { useFormat } from '../lib/format';

interface AttentionLink {
  id: string;
  url: string;
  landing_url: string;
  subid: string | null;
  program_id: number;
  state: string;
  since: string;
  clicks_lost: number;
}

const STATE_WORDS: Record<string, string> = {
  out_of_stock: 'Out of stock',
  program_paused: 'Program paused',
  program_ended: 'Program ended',
  not_approved: 'Not approved',
  unreachable: 'Unreachable',
};

export const attentionQuery = (account: string) =>
  queryOptions({
    queryKey: ['links-attention', account] as const,
    queryFn: ({ signal }) => api<{ unhealthy: number; links: AttentionLink[] }>(`/accounts/${encodeURIComponent(account)}/links/attention`, { signal }),
    staleTime: 60_000,
  });

export function LinksNeedingAttention({ accountId }: { accountId: string }) {
  const fmt = useFormat();
  const q = useQuery(attentionQuery(accountId));
  if (q.isPending) return null;
  if (q.isError) return <ErrorNotice title="Links needing attention" error={q.error} onRetry={() => void q.refetch()} />;
  if (!q.data.links.length) return null;
  return (
    <Section
      title="Links needing attention"
      description={`Visitors still click these links, but their target cannot earn. ${fmt.number(q.data.unhealthy)} of your links are not ok.`}
      actions={
        <Link className="button button-secondary button-small" to="/links">
          Your links
        </Link>
      }
    >
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Links needing attention, as a table">
        <table className="table table-compact">
          <thead>
            <tr>
              <th scope="col">Link</th>
              <th scope="col">State</th>
              <th scope="col">Since</th>
              <th scope="col" className="num">
                Clicks lost
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.links.map((l) => (
              <tr key={l.id} data-link={l.id}>
                <th scope="row">
                  <span title={l.landing_url}>{l.landing_url.length > 80 ? `${l.landing_url.slice(0, 79)}…` : l.landing_url}</span>
                  {l.subid ? (
                    <>
                      {' '}
                      <code>{l.subid}</code>
                    </>
                  ) : null}
                </th>
                <td>
                  <StatusPill tone={l.state === 'out_of_stock' ? 'warning' : 'danger'}>{STATE_WORDS[l.state] ?? l.state}</StatusPill>
                </td>
                <td>{fmt.dateTime(l.since)}</td>
                <td className="num">{fmt.number(l.clicks_lost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
