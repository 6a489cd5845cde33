/**
 * Links: the link builder (a program, an optional landing URL and sub-ID, routing rules by country
 * and device: link-routing.tsx), a batch from pasted
 * lines (one outcome per line), and the account's links with the API's filters, paging, and each
 * link's clicks and sales (linkTotals, the stats read model).
 */
import { useId, useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import {
  allProgramsQuery,
  catalogKeys,
  createLink,
  createLinkBatch,
  linksQuery,
  linkTotalsQuery,
  type BatchResult,
  type LinkRequest,
  type LinkTotal,
  type Program,
  type TrackingLink,
} from '../api/catalog';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading, StatusPill } from '../components/feedback';
import { ChoiceGroup, Form, SelectField, SubmitButton, TextField, useFormState } from '../components/form';
import { CopyLinkButton, QrToggle } from '../components/link-tools';
import { Page, Section } from '../components/page';
import { Pager, useCursorPaging } from '../components/pager';
import { validateLinkList, validateLinkRequest } from '../generated/validators.js';
import { useFormat, type Formatters } from '../lib/format';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';
import { RoutingRules } from './link-routing';
import { routesOf, ruleProblems, ruleProblemsOf, type RuleDraft } from './link-routing-rules';
import { LABELS, lastDays, parseLines, requestOf, SUBID_HINT, type Line } from './link-lines';

const TITLE = 'Links';
const MAX_BATCH = 50;

export function LinksPage() {
  return (
    <AccountGate title={TITLE}>
      <Links />
    </AccountGate>
  );
}

function Links() {
  const account = useAccount();
  const programs = useQuery(allProgramsQuery(account.account_id));
  const all = programs.data?.data ?? [];
  const approved = all.filter((p) => p.relationship === 'approved' && p.status === 'active');
  return (
    <Page
      title={TITLE}
      description="Tracking links to a program’s landing page or any page on its domains, each with your sub-ID. Asking again for the same link gives the same link."
    >
      {programs.isPending ? (
        <Section title="Build a link">
          <Loading label="Loading your programs…" />
        </Section>
      ) : programs.isError ? (
        <Section title="Build a link">
          <ErrorNotice error={programs.error} onRetry={() => void programs.refetch()} />
        </Section>
      ) : approved.length === 0 ? (
        <Section title="Build a link">
          <p className="empty">
            You have no approved program yet. <Link to="/programs">Apply to a program</Link>: links can be built once it approves you.
          </p>
        </Section>
      ) : (
        <>
          <Builder programs={approved} />
          <Batch programs={approved} />
        </>
      )}
      <LinkList programs={all} />
    </Page>
  );
}

const programOptions = (programs: Program[]) =>
  programs.map((p) => ({ value: String(p.id), label: `${p.name} (${p.merchant.name || `campaign ${p.campaign_id}`})` }));

/** Where a program's links may point. */
function domainsHint(p: Program | undefined): string {
  if (!p) return '';
  const domains = p.allowed_domains?.length ? p.allowed_domains.join(', ') : p.default_landing_url ? new URL(p.default_landing_url).hostname : '';
  return `Default: ${p.default_landing_url ?? 'the program’s landing page'}.${domains ? ` Must be on ${domains}.` : ''}`;
}

const FALLBACK_OPTIONS = [{ value: 'on', label: 'Send visitors to the same product at another program' }] as const;

function useInitialProgram(programs: Program[]): string {
  const [params] = useSearchParams();
  const wanted = params.get('program');
  return programs.some((p) => String(p.id) === wanted) ? wanted! : String(programs[0]!.id);
}

function Builder({ programs }: { programs: Program[] }) {
  const account = useAccount();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const [program, setProgram] = useState(useInitialProgram(programs));
  const [landing, setLanding] = useState('');
  const [subid, setSubid] = useState('');
  const [made, setMade] = useState<TrackingLink | null>(null);
  const [rules, setRules] = useState<RuleDraft[]>([]);
  const [fallback, setFallback] = useState(true);
  const [ruleErrors, setRuleErrors] = useState<Record<string, string>>({});
  const form = useFormState(validateLinkRequest, LABELS);
  const create = useMutation({
    mutationFn: (input: LinkRequest) => createLink(account.account_id, input),
    onSuccess: (link) => {
      setMade(link);
      announce('Link ready. Copy it below.');
      void queryClient.invalidateQueries({ queryKey: catalogKeys.links(account.account_id) });
    },
    onError: (err) => {
      setRuleErrors(ruleProblemsOf(err));
      form.fail(err);
    },
  });
  const submit = () => {
    const input: LinkRequest = { ...requestOf(program, landing, subid), ...(rules.length ? { routes: routesOf(rules) } : {}), fallback };
    setMade(null);
    const problems = ruleProblems(rules);
    setRuleErrors(problems);
    // The schema's check fills the summary (its "Routing" entry leads to the section); each rule's fields show their own problem.
    if (form.check(input) && !Object.keys(problems).length) create.mutate(input);
  };
  const chosen = programs.find((p) => String(p.id) === program);
  return (
    <Section title="Build a link">
      <Form form={form} onSubmit={submit} pending={create.isPending} className="form form-inline" label="Build a link">
        <SelectField form={form} name="program_id" value={program} onChange={setProgram} options={programOptions(programs)} />
        <TextField form={form} name="landing_url" type="url" optional hint={domainsHint(chosen)} value={landing} onChange={setLanding} />
        <TextField form={form} name="subid" optional hint={SUBID_HINT} value={subid} onChange={setSubid} autoComplete="off" />
        <RoutingRules form={form} rules={rules} onChange={setRules} problems={ruleErrors} />
        <ChoiceGroup
          form={form}
          name="fallback"
          legend="When the product sells out"
          hint="For links to a product: if it is out of stock or no longer sold here, send visitors to the same product (same GTIN) in stock at another program you are approved for, credited to that program. Off: the program's home page instead."
          type="checkbox"
          options={FALLBACK_OPTIONS}
          values={fallback ? ['on'] : []}
          onChange={(v) => setFallback(v.includes('on'))}
        />
        <div className="form-actions">
          <SubmitButton pending={create.isPending}>Create link</SubmitButton>
        </div>
      </Form>
      {made && (
        <div className="made-link" role="region" aria-label="The new link">
          <p className="notice-title">Your link</p>
          <code className="mono break">{made.url}</code>
          <p className="muted small">
            To {made.landing_url}
            {made.subid ? ` · sub-ID ${made.subid}` : ''}
            {made.routes?.length ? ` · ${made.routes.length === 1 ? '1 routing rule' : `${made.routes.length} routing rules`}` : ''}
            {made.fallback === false ? ' · no fallback to another program' : ''}
          </p>
          <div className="row-actions">
            <CopyLinkButton url={made.url} what={made.subid ? `sub-ID ${made.subid}` : 'the new link'} />
            <QrToggle url={made.url} what={made.subid ? `sub-ID ${made.subid}` : 'the new link'} />
          </div>
        </div>
      )}
    </Section>
  );
}

// ---------------------------------------------------------------------------------------------
// Batch

interface LineOutcome extends Line {
  status: 'created' | 'existing' | 'error';
  link?: TrackingLink;
}

function Batch({ programs }: { programs: Program[] }) {
  const account = useAccount();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const id = useId();
  const [program, setProgram] = useState(useInitialProgram(programs));
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [outcomes, setOutcomes] = useState<LineOutcome[] | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const batch = useMutation({
    mutationFn: (links: LinkRequest[]) => createLinkBatch(account.account_id, links),
  });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (batch.isPending) return;
    setFailure(null);
    const lines = parseLines(text, program);
    const sendable = lines.filter((l) => l.input && !l.problem);
    const tooMany = lines.length > MAX_BATCH ? `${lines.length} lines: at most ${MAX_BATCH} at once.` : null;
    setProblem(!lines.length ? 'Paste at least one line.' : tooMany);
    if (!lines.length || tooMany) {
      setOutcomes(null);
      window.setTimeout(() => document.getElementById(`${id}-problem`)?.focus(), 0);
      return;
    }
    let result: BatchResult | null = null;
    if (sendable.length) {
      try {
        result = await batch.mutateAsync(sendable.map((l) => l.input!));
      } catch (err) {
        setFailure(err);
        setOutcomes(null);
        return;
      }
    }
    const byLine = new Map(sendable.map((l, i) => [l.line, result?.results[i]]));
    const shown: LineOutcome[] = lines.map((l) => {
      const r = byLine.get(l.line);
      if (!r) return { ...l, status: 'error' };
      if (r.status === 'error')
        return { ...l, status: 'error', problem: r.error?.errors?.length ? r.error.errors.map((x) => x.detail).join('; ') : r.error?.detail };
      return { ...l, status: r.status, link: r.link };
    });
    setOutcomes(shown);
    const count = (s: LineOutcome['status']) => shown.filter((o) => o.status === s).length;
    announce(`${count('created')} created, ${count('existing')} existing, ${count('error')} with an error.`);
    if (result && result.created + result.existing > 0) void queryClient.invalidateQueries({ queryKey: catalogKeys.links(account.account_id) });
    window.setTimeout(() => document.getElementById(`${id}-outcome`)?.focus(), 0);
  };

  const counts = outcomes && {
    created: outcomes.filter((o) => o.status === 'created').length,
    existing: outcomes.filter((o) => o.status === 'existing').length,
    error: outcomes.filter((o) => o.status === 'error').length,
  };
  const chosen = programs.find((p) => String(p.id) === program);
  return (
    <Section title="Create several links" description={`Paste up to ${MAX_BATCH} lines; each gets its own link or its own error.`}>
      <form noValidate onSubmit={(e) => void submit(e)} className="form" aria-label="Create several links">
        <div id={`${id}-problem`} tabIndex={-1} role="alert" className={problem ? 'error-summary' : 'error-summary-empty'}>
          {problem && (
            <>
              <p className="notice-title">There is a problem</p>
              <p>{problem}</p>
            </>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-program`}>Program for these links</label>
          <select id={`${id}-program`} name="program" value={program} onChange={(e) => setProgram(e.target.value)}>
            {programOptions(programs).map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className={`field${problem ? ' field-invalid' : ''}`}>
          <label htmlFor={`${id}-lines`}>Links, one per line</label>
          <p className="hint" id={`${id}-hint`}>
            Each line: a landing URL, a sub-ID, or both (a comma or a space between), e.g. <code>https://shop.example/boots, summer-boots</code>.{' '}
            {domainsHint(chosen)}
          </p>
          <textarea
            id={`${id}-lines`}
            name="lines"
            rows={6}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${id}-hint${problem ? ` ${id}-problem` : ''}`}
          />
        </div>
        <div className="form-actions">
          <SubmitButton pending={batch.isPending}>Create links</SubmitButton>
        </div>
      </form>
      {failure !== null && <ErrorNotice error={failure} />}
      {outcomes && counts && (
        <div className="results">
          <h3 id={`${id}-outcome`} tabIndex={-1} className="section-title">
            {counts.created} created, {counts.existing} existing, {counts.error} with an error
          </h3>
          <div className="table-wrap" role="region" aria-label="Table of the outcome per line" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">You pasted</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Link</th>
                </tr>
              </thead>
              <tbody>
                {outcomes.map((o) => (
                  <tr key={o.line} className={o.status === 'error' ? 'row-error' : undefined}>
                    <td>{o.line}</td>
                    <td className="mono break">{o.text}</td>
                    <td>
                      <StatusPill tone={o.status === 'error' ? 'danger' : o.status === 'created' ? 'success' : 'neutral'}>
                        {o.status === 'error' ? 'Error' : o.status === 'created' ? 'Created' : 'Already existed'}
                      </StatusPill>
                      {o.problem && <p className="field-error">{o.problem}</p>}
                    </td>
                    <td className="link-cell">
                      {o.link && (
                        <>
                          <code className="mono break">{o.link.url}</code>
                          <div className="row-actions">
                            <CopyLinkButton url={o.link.url} what={`line ${o.line}`} />
                          </div>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </Section>
  );
}

// ---------------------------------------------------------------------------------------------
// The list, with clicks and sales

const RANGES = [
  { value: '', label: 'All time' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
  { value: '365', label: 'Last 365 days' },
];

const FILTER_LABELS = { subid: 'Sub-ID', campaign_id: 'Campaign' };

function LinkList({ programs }: { programs: Program[] }) {
  const account = useAccount();
  const fmt = useFormat();
  const sizeId = useId();
  const paging = useCursorPaging();
  const params = paging.params;
  const filters = { subid: params.get('subid') ?? '', campaign_id: params.get('campaign_id') ?? '' };
  const range = params.get('range') ?? '';
  const [subid, setSubid] = useState(filters.subid);
  const [campaign, setCampaign] = useState(filters.campaign_id);
  const form = useFormState(validateLinkList, FILTER_LABELS);
  const list = useQuery(linksQuery(account.account_id, filters, { cursor: paging.cursor, page_size: paging.pageSize }));
  const rows = list.data?.data ?? [];
  const names = new Map(programs.map((p) => [p.id, p.name]));

  const period: { date_from?: string; date_to?: string } = range ? lastDays(Number(range), fmt.timeZone) : {};
  const totals = useQuery(linkTotalsQuery(account.account_id, { ids: rows.map((l) => l.id), timezone: fmt.timeZone, ...period }));
  const totalOf = new Map<string, LinkTotal>((list.isPlaceholderData ? [] : (totals.data?.data ?? [])).map((t) => [t.link_id, t]));

  const campaigns = useMemo(() => {
    const seen = new Map<number, string>();
    for (const p of programs) if (!seen.has(p.campaign_id)) seen.set(p.campaign_id, p.merchant.name || `Campaign ${p.campaign_id}`);
    return [{ value: '', label: 'Every campaign' }, ...[...seen].map(([id, name]) => ({ value: String(id), label: `${name} (${id})` }))];
  }, [programs]);

  const apply = () => {
    const next = { ...(subid.trim() ? { subid: subid.trim() } : {}), ...(campaign ? { campaign_id: campaign } : {}) };
    if (!form.check(next)) return;
    paging.setFilters({ ...next, range: range || undefined });
  };
  const filtered = !!(filters.subid || filters.campaign_id);

  return (
    <Section
      title="Your links"
      description="Newest first. Clicks leave out filtered bot clicks; sales count every status, commission the pending and approved ones."
    >
      <Form form={form} onSubmit={apply} className="form form-inline filter-bar" label="Filter links">
        <TextField form={form} name="subid" optional value={subid} onChange={setSubid} autoComplete="off" />
        <SelectField form={form} name="campaign_id" optional value={campaign} onChange={setCampaign} options={campaigns} />
        <div className="form-actions">
          <SubmitButton pending={false} className="button button-secondary">
            Apply filters
          </SubmitButton>
          {filtered && (
            <button
              type="button"
              className="button button-ghost"
              onClick={() => {
                setSubid('');
                setCampaign('');
                paging.setFilters({ range: range || undefined });
              }}
            >
              Clear filters
            </button>
          )}
        </div>
      </Form>
      <div className="field range-field">
        <label htmlFor="links-range">Clicks and sales over</label>
        <select id="links-range" value={range} onChange={(e) => paging.setFilters({ ...filters, range: e.target.value || undefined })}>
          {RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
        {range && (
          <p className="hint">
            {fmt.day(period.date_from)} to {fmt.day(period.date_to)}, days of {fmt.timeZone}
          </p>
        )}
      </div>
      {totals.isError && <ErrorNotice title="Clicks and sales could not be read" error={totals.error} onRetry={() => void totals.refetch()} />}
      {list.isPending ? (
        <Loading label="Loading your links…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <p className="empty">
          {filtered
            ? 'No link matches these filters. Clear them to see every link.'
            : paging.cursor
              ? 'No more links.'
              : 'No links yet. Build one above, or paste several lines to create them at once.'}
        </p>
      ) : (
        <>
          <div className="table-wrap" role="region" aria-label="Table of your links" tabIndex={0} aria-busy={list.isPlaceholderData || undefined}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Tracked link</th>
                  <th scope="col">Program</th>
                  <th scope="col">Sub-ID</th>
                  <th scope="col">Created</th>
                  <th scope="col" className="num">
                    Clicks
                  </th>
                  <th scope="col" className="num">
                    Sales
                  </th>
                  <th scope="col" className="num">
                    Commission
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((l) => (
                  <tr key={l.id}>
                    <td className="link-cell">
                      <code className="mono break">{l.url}</code>
                      <p className="muted small break">to {l.landing_url}</p>
                      <div className="row-actions">
                        <CopyLinkButton url={l.url} what={l.subid ? `sub-ID ${l.subid}` : `link ${l.id}`} />
                      </div>
                    </td>
                    <td>
                      {names.get(l.program_id) ?? `Program ${l.program_id}`}
                      <p className="muted small">campaign {l.campaign_id}</p>
                    </td>
                    <td>{l.subid ? <span className="mono">{l.subid}</span> : <span className="muted">none</span>}</td>
                    <td className="nowrap">{fmt.dateTime(l.created_at)}</td>
                    <Totals total={totalOf.get(l.id)} fmt={fmt} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {(rows.length > 0 || paging.cursor) && (
        <Pager
          label="links"
          paging={paging}
          page={list.data?.page ?? 1}
          nextCursor={list.data?.next_cursor ?? null}
          loading={list.isPlaceholderData}
          sizeId={sizeId}
        />
      )}
    </Section>
  );
}

function Totals({ total, fmt }: { total: LinkTotal | undefined; fmt: Formatters }) {
  if (!total)
    return (
      <td colSpan={3} className="muted num">
        …<span className="visually-hidden">clicks and sales loading</span>
      </td>
    );
  const money = Object.entries(total.commission);
  return (
    <>
      <td className="num">{fmt.number(total.clicks)}</td>
      <td className="num">
        {fmt.number(total.conversions)}
        {total.declined > 0 && <p className="muted small">{fmt.number(total.declined)} declined</p>}
      </td>
      <td className="num">{money.length ? money.map(([cur, amount]) => <div key={cur}>{fmt.money(amount, cur)}</div>) : <span className="muted">—</span>}</td>
    </>
  );
}
