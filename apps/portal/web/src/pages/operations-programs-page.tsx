/** Operations, Merchants and programs: the network's merchants and their programs; admins create them (audited). */
import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createMerchant, createProgram, merchantsQuery, programsQuery, type NewProgram } from '../api/operator-programs';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading, Notice, StatusPill, words } from '../components/feedback';
import { Page, Section } from '../components/page';
import { OperatorOnly } from './operations-pages';

export function MerchantsProgramsPage() {
  return (
    <OperatorOnly title="Merchants and programs">
      <Page
        title="Merchants and programs"
        eyebrow="Operations"
        docTitle="Merchants and programs · Operations"
        description="The network's merchants and the programs publishers join. Creating one needs an admin operator and is recorded in the audit log."
      >
        <Merchants />
        <Programs />
      </Page>
    </OperatorOnly>
  );
}

/** A labelled text input. */
function Field({ label, value, onChange, hint, type = 'text' }: { label: string; value: string; onChange: (v: string) => void; hint?: string; type?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input id={id} type={type} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={hint ? `${id}-hint` : undefined} />
    </div>
  );
}

function useCreate<T>(run: (input: T) => Promise<string>, key: string) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [done, setDone] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: run,
    onMutate: () => setDone(null),
    onSuccess: async (message) => {
      setDone(message);
      announce(message);
      await queryClient.invalidateQueries({ queryKey: ['operator', key] });
    },
  });
  return { create: m.mutate, pending: m.isPending, done, error: m.error };
}

function Outcome({ done, error }: { done: string | null; error: unknown }) {
  if (error) return <ErrorNotice error={error} />;
  if (done)
    return (
      <Notice tone="success" role="status">
        <p>{done}</p>
      </Notice>
    );
  return null;
}

function Merchants() {
  const list = useQuery(merchantsQuery());
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [domains, setDomains] = useState('');
  const { create, pending, done, error } = useCreate(async (input: { id: number; name: string; domains: string[] }) => {
    const m = await createMerchant(input);
    return `Merchant ${m.name} (${m.id}) created.`;
  }, 'merchants');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    create({
      id: Number(id),
      name: name.trim(),
      domains: domains
        .split(',')
        .map((d) => d.trim())
        .filter(Boolean),
    });
  };
  return (
    <Section title="Merchants">
      <form className="form form-inline" onSubmit={submit} noValidate aria-label="Create a merchant">
        <Field label="Merchant id" value={id} onChange={setId} type="number" hint="A whole number, not used before." />
        <Field label="Merchant name" value={name} onChange={setName} />
        <Field label="Shop domains" value={domains} onChange={setDomains} hint="Comma separated, e.g. shop.example, www.shop.example." />
        <div className="form-actions">
          <button type="submit" className="button button-primary" aria-disabled={pending || undefined}>
            Create merchant
          </button>
        </div>
      </form>
      <Outcome done={done} error={error} />
      {list.isPending ? (
        <Loading label="Loading the merchants…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">No merchants yet.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of merchants" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Merchant</th>
                <th scope="col">Domains</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((m) => (
                <tr key={m.id} data-merchant={m.id}>
                  <td className="mono">{m.id}</td>
                  <td>{m.name}</td>
                  <td>{m.domains.length ? m.domains.join(', ') : <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

const STATUS_TONES: Record<string, 'success' | 'warning' | 'neutral'> = { active: 'success', paused: 'warning', closed: 'neutral' };

function Programs() {
  const list = useQuery(programsQuery());
  const [draft, setDraft] = useState({ id: '', merchant: '', name: '', country: '', currency: 'EUR', landing_url: '', commission: '' });
  const [autoApprove, setAutoApprove] = useState(false);
  const autoId = useId();
  const set = (k: keyof typeof draft) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const { create, pending, done, error } = useCreate(async (input: NewProgram) => {
    const p = await createProgram(input);
    return `Program ${p.name} (${p.id}) created.`;
  }, 'programs');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    create({
      id: Number(draft.id),
      merchant: Number(draft.merchant),
      name: draft.name.trim(),
      country: draft.country.trim().toUpperCase(),
      currency: draft.currency.trim().toUpperCase() || undefined,
      landing_url: draft.landing_url.trim(),
      commission: draft.commission.trim() || undefined,
      auto_approve: autoApprove,
    });
  };
  return (
    <Section title="Programs">
      <form className="form form-inline" onSubmit={submit} noValidate aria-label="Create a program">
        <Field label="Program id" value={draft.id} onChange={set('id')} type="number" />
        <Field label="Merchant id of the program" value={draft.merchant} onChange={set('merchant')} type="number" />
        <Field label="Program name" value={draft.name} onChange={set('name')} />
        <Field label="Market" value={draft.country} onChange={set('country')} hint="A country code, e.g. DE." />
        <Field label="Currency" value={draft.currency} onChange={set('currency')} />
        <Field label="Landing page" value={draft.landing_url} onChange={set('landing_url')} type="url" />
        <Field label="Commission" value={draft.commission} onChange={set('commission')} hint="The terms as publishers read them, e.g. 8% of the sale." />
        <div className="field field-check">
          <label className="choice" htmlFor={autoId}>
            <input id={autoId} type="checkbox" checked={autoApprove} onChange={(e) => setAutoApprove(e.target.checked)} />
            Approve applications at once
          </label>
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary" aria-disabled={pending || undefined}>
            Create program
          </button>
        </div>
      </form>
      <Outcome done={done} error={error} />
      {list.isPending ? (
        <Loading label="Loading the programs…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.data.length === 0 ? (
        <p className="empty">No programs yet.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of programs" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Program</th>
                <th scope="col">Merchant</th>
                <th scope="col">Markets</th>
                <th scope="col">Status</th>
                <th scope="col">Joining</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((p) => (
                <tr key={p.id} data-program={p.id}>
                  <td className="mono">{p.id}</td>
                  <td>
                    {p.name}
                    <p className="muted small">{p.default_landing_url}</p>
                  </td>
                  <td>
                    {p.merchant.name ?? '—'} <span className="muted small mono">{p.merchant.id}</span>
                  </td>
                  <td>
                    {p.countries.join(', ')} <span className="muted small">{p.currency}</span>
                  </td>
                  <td>
                    <StatusPill tone={STATUS_TONES[p.status] ?? 'neutral'}>{words(p.status)}</StatusPill>
                  </td>
                  <td>{!p.joinable ? 'Closed to applications' : p.auto_approve ? 'Approved at once' : 'Reviewed'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
