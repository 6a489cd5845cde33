/**
 * The dashboard's split by channel: for the chosen range, how many conversions and how much
 * commission came by link (a click), coupon code, AI agent (an attribution token) and accepted
 * missing-sale inquiry. A table with a caption; numbers and money through Intl.
 */
import { useQuery } from '@tanstack/react-query';
import { channelsQuery, type Channel, type OverviewRange } from '../api/dashboard';
import { ErrorNotice, Loading } from '../components/feedback';
import { Section } from '../components/page';
import { useFormat } from '../lib/format';
import { sumsInWords } from './dashboard-format';

export const CHANNEL_WORDS: Record<Channel, string> = {
  link: 'Links (clicks)',
  code: 'Coupon codes',
  agent: 'AI agents',
  inquiry: 'Missing-sale inquiries',
};

export function ChannelSplitSection({ accountId, range }: { accountId: string; range: OverviewRange }) {
  const fmt = useFormat();
  const split = useQuery(channelsQuery(accountId, range));
  return (
    <Section
      title="By channel"
      description="How your sales were attributed: a click on your link, your coupon code, an AI agent’s token, or a missing-sale inquiry the merchant accepted."
    >
      {split.isPending ? (
        <Loading label="Loading the split by channel…" lines={3} />
      ) : split.isError ? (
        <ErrorNotice title="The split by channel could not be loaded" error={split.error} onRetry={() => void split.refetch()} />
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Conversions by channel" data-stale={split.isPlaceholderData || undefined}>
          <table className="table table-compact">
            <caption>
              Conversions and commission by channel, {fmt.day(split.data.date_from)} to {fmt.day(split.data.date_to)}
            </caption>
            <thead>
              <tr>
                <th scope="col">Channel</th>
                <th scope="col" className="num">
                  Conversions
                </th>
                <th scope="col" className="num">
                  Pending
                </th>
                <th scope="col" className="num">
                  Approved
                </th>
                <th scope="col" className="num">
                  Earned
                </th>
              </tr>
            </thead>
            <tbody>
              {split.data.channels.map((c) => (
                <tr key={c.channel} data-channel={c.channel}>
                  <th scope="row">{CHANNEL_WORDS[c.channel]}</th>
                  <td className="num">{fmt.number(c.conversions.total)}</td>
                  <td className="num">{fmt.number(c.conversions.pending)}</td>
                  <td className="num">{fmt.number(c.conversions.approved)}</td>
                  <td className="num">{sumsInWords(c.commission.earned, fmt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
