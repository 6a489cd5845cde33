/**
 * Programs: the account's programs (approved, pending review, rejected) and the programs open for
 * application, with their terms; Apply (the idempotent use case: applying again answers the
 * existing assignment) and the status it results in; the account's personal coupon codes
 * (./program-codes.tsx).
 */
import { useState, type FormEvent } from 'react';
import { useInfiniteQuery, useMutation, useQueryClient, type UseInfiniteQueryResult, type InfiniteData } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import {
  applyToProgram,
  catalogKeys,
  joinableProgramsQuery,
  programsQuery,
  type Application,
  type Program,
  type ProgramPage,
  type Relationship,
} from '../api/catalog';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading, Notice, StatusPill, type PillTone } from '../components/feedback';
import { Page, Section } from '../components/page';
import { useFormat } from '../lib/format';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';
import { ProgramCodes } from './program-codes';

const TITLE = 'Programs';

export function ProgramsPage() {
  return (
    <AccountGate title={TITLE}>
      <Programs />
    </AccountGate>
  );
}

const RELATIONSHIP: Record<Relationship, { label: string; tone: PillTone }> = {
  approved: { label: 'Approved', tone: 'success' },
  pending: { label: 'Pending review', tone: 'warning' },
  rejected: { label: 'Rejected', tone: 'danger' },
  available: { label: 'Open to join', tone: 'info' },
};

export const relationshipOf = (r: string) => RELATIONSHIP[r as Relationship] ?? { label: r, tone: 'neutral' as const };

function Programs() {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const [draft, setDraft] = useState(search);
  const [applied, setApplied] = useState<Application | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v = draft.trim().slice(0, 200);
    setParams(v ? { search: v } : {});
  };
  return (
    <Page title={TITLE} description="The merchants whose products and links you may promote, and those you can apply to. Terms are the merchant’s.">
      <form className="form form-inline filter-bar" role="search" aria-label="Programs" onSubmit={submit}>
        <div className="field">
          <label htmlFor="program-search">Program name</label>
          <input id="program-search" type="search" name="search" maxLength={200} value={draft} onChange={(e) => setDraft(e.target.value)} />
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-secondary">
            Apply filter
          </button>
          {search && (
            <button
              type="button"
              className="button button-ghost"
              onClick={() => {
                setDraft('');
                setParams({});
              }}
            >
              Clear filter
            </button>
          )}
        </div>
      </form>
      {applied && <AppliedNotice application={applied} onDismiss={() => setApplied(null)} />}
      <MyPrograms search={search} />
      <ProgramCodes />
      <JoinablePrograms search={search} onApplied={setApplied} />
    </Page>
  );
}

function AppliedNotice({ application, onDismiss }: { application: Application; onDismiss: () => void }) {
  const status = relationshipOf(application.status);
  const name = application.program.name;
  return (
    <Notice
      tone={application.status === 'approved' ? 'success' : application.status === 'rejected' ? 'danger' : 'info'}
      title={`${name}: ${status.label}`}
      role="status"
    >
      <p>
        {application.status === 'approved'
          ? application.created
            ? 'Approved at once. Its products appear in your searches, and you can build links for it now.'
            : 'You were already approved for this program.'
          : application.status === 'pending'
            ? application.created
              ? 'Your application was sent. The merchant reviews it; it shows under “Your programs” meanwhile.'
              : 'Your application is already waiting for the merchant’s review.'
            : 'The merchant declined an earlier application; applying again does not change that.'}
      </p>
      <p className="button-row">
        {application.status === 'approved' && (
          <Link className="button button-primary button-small" to={`/links?program=${application.program_id}`}>
            Build a link for {name}
          </Link>
        )}
        <button type="button" className="button button-secondary button-small" onClick={onDismiss}>
          Dismiss
        </button>
      </p>
    </Notice>
  );
}

function LoadMore({ list }: { list: UseInfiniteQueryResult<InfiniteData<ProgramPage>> }) {
  return (
    <>
      {list.isFetchNextPageError && <ErrorNotice error={list.error} onRetry={() => void list.fetchNextPage()} />}
      {list.hasNextPage && (
        <div className="load-more">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => !list.isFetchingNextPage && void list.fetchNextPage()}
            aria-disabled={list.isFetchingNextPage || undefined}
          >
            {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </>
  );
}

/** The terms a program states: commission, cookie, markets, currency, landing page and domains. */
function Terms({ p }: { p: Program }) {
  return (
    <>
      <td>
        {p.commission || '—'}
        {p.currency && <p className="muted small">in {p.currency}</p>}
      </td>
      <td className="nowrap">{p.cookie_days !== undefined ? `${p.cookie_days} days` : '—'}</td>
      <td>{p.countries?.length ? p.countries.join(', ') : '—'}</td>
    </>
  );
}

function ProgramName({ p }: { p: Program }) {
  return (
    <>
      <span className="strong">{p.name}</span>
      <p className="muted small">
        {p.merchant.name || 'Merchant'} · campaign {p.campaign_id} · program {p.id}
        {p.category ? ` · ${p.category}` : ''}
      </p>
      {(p.description || p.allowed_domains?.length) && (
        <details className="terms">
          <summary>
            Terms<span className="visually-hidden"> of {p.name}</span>
          </summary>
          {p.description && <p>{p.description}</p>}
          {p.default_landing_url && (
            <p className="small">
              Landing page: <span className="mono break">{p.default_landing_url}</span>
            </p>
          )}
          {p.allowed_domains && p.allowed_domains.length > 0 && <p className="small">Links may point to: {p.allowed_domains.join(', ')}</p>}
        </details>
      )}
    </>
  );
}

function MyPrograms({ search }: { search: string }) {
  const account = useAccount();
  const list = useInfiniteQuery(programsQuery(account.account_id, search));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Section title="Your programs" description="Approved programs’ products appear in your searches; links can be built for them.">
      {list.isPending ? (
        <Loading label="Loading your programs…" />
      ) : list.isError && !rows.length ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <p className="empty">{search ? `None of your programs is named like “${search}”.` : 'No programs yet. Apply to one below: many approve at once.'}</p>
      ) : (
        <>
          <div className="table-wrap" role="region" aria-label="Table of your programs" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Program</th>
                  <th scope="col">Commission</th>
                  <th scope="col">Cookie</th>
                  <th scope="col">Markets</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => {
                  const rel = relationshipOf(p.relationship);
                  return (
                    <tr key={p.id}>
                      <td>
                        <ProgramName p={p} />
                      </td>
                      <Terms p={p} />
                      <td>
                        <StatusPill tone={rel.tone}>{rel.label}</StatusPill>
                        {p.status !== 'active' && <p className="muted small">Program {p.status}</p>}
                      </td>
                      <td className="row-actions">
                        {p.relationship === 'approved' && p.status === 'active' && (
                          <Link className="button button-secondary button-small" to={`/links?program=${p.id}`}>
                            Build a link<span className="visually-hidden"> for {p.name}</span>
                          </Link>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <LoadMore list={list} />
        </>
      )}
    </Section>
  );
}

function JoinablePrograms({ search, onApplied }: { search: string; onApplied: (a: Application) => void }) {
  const account = useAccount();
  const fmt = useFormat();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(joinableProgramsQuery(account.account_id, search));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const apply = useMutation({
    mutationFn: (p: Program) => applyToProgram(account.account_id, p.id),
    onSuccess: (a) => {
      onApplied(a);
      announce(`${a.program.name}: ${relationshipOf(a.status).label}.`);
      void queryClient.invalidateQueries({ queryKey: catalogKeys.programs(account.account_id) });
      // Newly approved programs' products appear in searches.
      void queryClient.invalidateQueries({ queryKey: catalogKeys.products(account.account_id) });
    },
  });
  return (
    <Section title="Programs you can join" description="Applying is safe to repeat: a second click answers the same application.">
      {apply.isError && <ErrorNotice error={apply.error} />}
      {list.isPending ? (
        <Loading label="Loading programs open to you…" />
      ) : list.isError && !rows.length ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <p className="empty">
          {search ? `No program open to you is named like “${search}”.` : 'You have applied to every program open to you. New ones appear here.'}
        </p>
      ) : (
        <>
          <p className="muted small">{fmt.number(rows.length)} shown</p>
          <div className="table-wrap" role="region" aria-label="Table of programs you can join" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Program</th>
                  <th scope="col">Commission</th>
                  <th scope="col">Cookie</th>
                  <th scope="col">Markets</th>
                  <th scope="col">Approval</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => {
                  const busy = apply.isPending && apply.variables?.id === p.id;
                  return (
                    <tr key={p.id}>
                      <td>
                        <ProgramName p={p} />
                      </td>
                      <Terms p={p} />
                      <td>{p.auto_approve ? 'At once' : 'Reviewed by the merchant'}</td>
                      <td className="row-actions">
                        <button
                          type="button"
                          className="button button-primary button-small"
                          aria-disabled={apply.isPending || undefined}
                          onClick={() => !apply.isPending && apply.mutate(p)}
                        >
                          {busy ? 'Applying…' : 'Apply'}
                          <span className="visually-hidden"> to {p.name}</span>
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <LoadMore list={list} />
        </>
      )}
    </Section>
  );
}
