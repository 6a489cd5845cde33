/**
 * Clicks: the API's list with its filters (sub-ID, merchant, link, bots) in the URL, newest
 * first, cursor paging, and a CSV of exactly the filtered rows.
 */
import { useId, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { clicksExportUrl, clicksQuery, type Click, type ClickFilters } from '../api/activity';
import { ExportDownload } from '../components/export-download';
import { ErrorNotice, Loading, StatusPill, words } from '../components/feedback';
import { Page, Section } from '../components/page';
import { Pager, useCursorPaging, type CursorPaging } from '../components/pager';
import { useFormat } from '../lib/format';
import { describeUserAgent } from '../lib/user-agent';
import { useAccount } from '../session';
import { clickFilterProblems, clickFiltersOf, type ClickFilterProblems } from './activity-filters';
import { AccountGate } from './account-gate';

const TITLE = 'Clicks';

export function ClicksPage() {
  return (
    <AccountGate title={TITLE}>
      <Clicks />
    </AccountGate>
  );
}

function Clicks() {
  const account = useAccount();
  const fmt = useFormat();
  const paging = useCursorPaging();
  const filters = clickFiltersOf(paging.params);
  const list = useQuery(clicksQuery(account.account_id, filters, { cursor: paging.cursor, page_size: paging.pageSize }));
  const sizeId = useId();
  const rows = list.data?.data ?? [];
  const filtered = Object.keys(filters).some((k) => k !== 'include_bots');

  return (
    <Page
      title={TITLE}
      description={`Every visit through your tracked links, newest first. Times in ${fmt.timeZone}.`}
      actions={<ExportDownload href={clicksExportUrl(account.account_id, filters)} fallbackName="clicks.csv" />}
    >
      <Section
        title="Filters"
        description="Clicks flagged as automated traffic (bots) are left out unless you include them. The CSV holds every row of these filters."
      >
        <FilterForm key={paging.params.toString()} filters={filters} paging={paging} />
      </Section>
      <Section title="Click list" description={list.data ? `${filtered ? 'Filtered. ' : ''}Sorted by time, newest first.` : undefined}>
        {list.isPending ? (
          <Loading label="Loading clicks…" />
        ) : list.isError && !list.data ? (
          <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
        ) : rows.length === 0 ? (
          filtered || filters.include_bots ? (
            <div className="empty">
              <p>No clicks match these filters.</p>
              <p>
                Check the sub-ID, merchant and link, or{' '}
                <button type="button" className="link-button" onClick={() => paging.setFilters({})}>
                  clear the filters
                </button>
                .
              </p>
            </div>
          ) : (
            <div className="empty">
              <p>No clicks yet.</p>
              <p>
                Clicks appear here when people follow your tracked links. <Link to="/links">Create a tracked link</Link> and put it on your site, newsletter or
                post.
              </p>
            </div>
          )
        ) : (
          <>
            {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
            <ClickTable rows={rows} />
            <Pager
              label="clicks"
              paging={paging}
              page={list.data?.page ?? 1}
              nextCursor={list.data?.next_cursor ?? null}
              loading={list.isPlaceholderData}
              sizeId={sizeId}
            />
          </>
        )}
      </Section>
    </Page>
  );
}

function FilterForm({ filters, paging }: { filters: ClickFilters; paging: CursorPaging }) {
  const ids = { subid: useId(), campaign: useId(), link: useId(), bots: useId(), error: useId() };
  const [subid, setSubid] = useState(filters.sub_id ?? '');
  const [campaign, setCampaign] = useState(filters.campaign_id ?? '');
  const [link, setLink] = useState(filters.deeplink_id ?? '');
  const [bots, setBots] = useState(!!filters.include_bots);
  const [errors, setErrors] = useState<ClickFilterProblems>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found = clickFilterProblems(subid, campaign, link);
    setErrors(found);
    if (Object.keys(found).length) return;
    paging.setFilters({ sub_id: subid.trim(), campaign_id: campaign.trim(), deeplink_id: link.trim(), include_bots: bots });
  };
  const field = (name: 'subid' | 'campaign' | 'link', label: string, value: string, set: (v: string) => void, hint?: string) => (
    <div className="field">
      <label htmlFor={ids[name]}>{label}</label>
      <input
        id={ids[name]}
        value={value}
        onChange={(e) => set(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        inputMode={name === 'campaign' ? 'numeric' : undefined}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={[hint ? `${ids.error}-${name}-hint` : '', errors[name] ? `${ids.error}-${name}` : ''].filter(Boolean).join(' ') || undefined}
      />
      {hint && (
        <p className="hint" id={`${ids.error}-${name}-hint`}>
          {hint}
        </p>
      )}
      {errors[name] && (
        <p className="field-error" id={`${ids.error}-${name}`}>
          {errors[name]}
        </p>
      )}
    </div>
  );
  return (
    <form className="form form-inline filter-form" onSubmit={submit} noValidate aria-label="Click filters">
      {field('subid', 'Sub-ID', subid, setSubid)}
      {field('campaign', 'Merchant', campaign, setCampaign, 'The merchant id.')}
      {field('link', 'Link', link, setLink, 'The link id (deeplink_id).')}
      <div className="field field-check">
        <label className="choice" htmlFor={ids.bots}>
          <input id={ids.bots} type="checkbox" checked={bots} onChange={(e) => setBots(e.target.checked)} />
          Include bots
        </label>
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary">
          Apply filters
        </button>
        {Object.keys(filters).length > 0 && (
          <button type="button" className="button button-ghost" onClick={() => paging.setFilters({})}>
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}

function ClickTable({ rows }: { rows: Click[] }) {
  const fmt = useFormat();
  return (
    <div className="table-wrap" role="region" aria-label="Table of clicks" tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col" aria-sort="descending">
              Time <span className="muted">(newest first)</span>
            </th>
            <th scope="col">Link</th>
            <th scope="col">Merchant</th>
            <th scope="col">Sub-ID</th>
            <th scope="col">Referrer</th>
            <th scope="col">Device</th>
            <th scope="col">Traffic</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.id} data-click={c.id}>
              <td className="nowrap">{fmt.dateTime(c.created_at)}</td>
              <td>
                <span className="mono">{c.deeplink_id}</span>
                <p className="muted small">Program {c.program_id}</p>
              </td>
              <td>{c.campaign_id}</td>
              <td>{c.sub_id ? <span className="mono">{c.sub_id}</span> : <span className="muted">—</span>}</td>
              <td className="cell-clip">{c.referrer ? <span title={c.referrer}>{c.referrer}</span> : <span className="muted">—</span>}</td>
              <td>{describeUserAgent(c.user_agent)}</td>
              <td>{c.is_bot ? <StatusPill tone="warning">Bot{c.bot_reason ? `: ${words(c.bot_reason).toLowerCase()}` : ''}</StatusPill> : 'Person'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
