/**
 * Personal coupon codes on the Programs page: "Request a coupon code" at an approved program (its
 * rules shown once chosen: prefix, length, active at once or reviewed by the network), the
 * outcome with its status, and the account's codes per program with their status. The API's
 * refusals (a taken code, one that breaks the rules, the most codes a program allows) are said on
 * the code's field and in the form's summary. A form's retry carries the same Idempotency-Key.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { allProgramsQuery, type Program } from '../api/catalog';
import { codeKeys, codeRulesQuery, codesQuery, requestCode, type CodePage, type CodeStatus, type CouponCode } from '../api/codes';
import { useAnnounce } from '../components/announcer';
import { ErrorNotice, Loading, StatusPill, type PillTone } from '../components/feedback';
import { Form, SelectField, SubmitButton, TextField, useFormState } from '../components/form';
import { Section } from '../components/page';
import { useFormat } from '../lib/format';
import { useAccount } from '../session';
import { rulesInWords } from './code-rules';

export const CODE_STATUS: Record<CodeStatus, { label: string; tone: PillTone }> = {
  active: { label: 'Active', tone: 'success' },
  pending_review: { label: 'Waiting for review', tone: 'warning' },
  rejected: { label: 'Rejected', tone: 'danger' },
};

const LABELS = { program_id: 'Program', code: 'Code you want' };

export function ProgramCodes() {
  const account = useAccount();
  const programs = useQuery(allProgramsQuery(account.account_id));
  const codes = useQuery(codesQuery(account.account_id));
  const names = useMemo(() => new Map((programs.data?.data ?? []).map((p) => [p.id, p.name])), [programs.data]);
  const canRequest = account.role === 'owner' || account.role === 'developer';
  const approved = (programs.data?.data ?? []).filter((p) => p.relationship === 'approved' && p.status === 'active');
  return (
    <Section
      title="Coupon codes"
      description="A personal code shoppers type at the merchant’s checkout: the sale is credited to you without a click. A sale that came through your link as well is credited to the link."
    >
      {!canRequest ? (
        <p className="muted">Only owners and developers of the account request codes; the account’s codes are listed below.</p>
      ) : programs.isError ? (
        <ErrorNotice error={programs.error} title="Your programs could not be loaded" onRetry={() => void programs.refetch()} />
      ) : programs.isPending ? (
        <Loading label="Loading your programs…" lines={2} />
      ) : !approved.length ? (
        <p className="empty">Codes are for programs you are approved for: apply to one below.</p>
      ) : (
        <RequestCode accountId={account.account_id} approved={approved} />
      )}
      <CodeList codes={codes} names={names} />
    </Section>
  );
}

function RequestCode({ accountId, approved }: { accountId: string; approved: Program[] }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const form = useFormState(null, LABELS);
  const [programId, setProgramId] = useState('');
  const [code, setCode] = useState('');
  const [outcome, setOutcome] = useState<{ code: CouponCode; held: boolean; program: string } | null>(null);
  const outcomeId = useId();
  const rules = useQuery({ ...codeRulesQuery(accountId, Number(programId)), enabled: programId !== '' });
  // One key per body: a retry of the same form replays the first answer; a changed form is a new call.
  const idem = useRef<{ body: string; key: string } | null>(null);

  const ask = useMutation({
    mutationFn: (input: { program_id: number; code?: string }) => {
      const body = JSON.stringify(input);
      if (idem.current?.body !== body) idem.current = { body, key: crypto.randomUUID() };
      return requestCode(accountId, input, idem.current.key);
    },
    onMutate: () => {
      setOutcome(null);
      form.clear();
    },
    onSuccess: async (c) => {
      const program = approved.find((p) => p.id === c.program_id)?.name ?? `Program ${c.program_id}`;
      // The same code asked for again answers the code the account holds (200: created long enough ago to be listed).
      const held = (queryClient.getQueryData<CodePage>(codesQuery(accountId).queryKey)?.data ?? []).some((x) => x.id === c.id);
      setOutcome({ code: c, held, program });
      announce(`${held ? 'You hold' : 'Code'} ${c.code} at ${program}: ${CODE_STATUS[c.status].label}.`);
      setCode('');
      await queryClient.invalidateQueries({ queryKey: codeKeys.all(accountId) });
    },
    onError: (e) => form.fail(e),
  });

  useEffect(() => {
    if (outcome) document.getElementById(outcomeId)?.focus();
  }, [outcome, outcomeId]);

  const submit = () => {
    const wanted = code.trim();
    // Whatever is missing or wrong, the API names it and the form shows it on its field.
    ask.mutate({ ...(programId ? { program_id: Number(programId) } : {}), ...(wanted ? { code: wanted } : {}) } as { program_id: number; code?: string });
  };

  const rulesHint = !programId
    ? 'Choose a program to see what its codes may look like.'
    : rules.data
      ? `Codes at this program: ${rulesInWords(rules.data)} Leave empty to get one made for you.`
      : rules.isError
        ? 'The program’s rules could not be loaded; the answer will say what is wrong.'
        : 'Loading the program’s rules…';

  return (
    <>
      <Form form={form} onSubmit={submit} pending={ask.isPending} label="Request a coupon code">
        <div className="field-row">
          <SelectField
            form={form}
            name="program_id"
            value={programId}
            onChange={setProgramId}
            options={[{ value: '', label: 'Choose a program' }, ...approved.map((p) => ({ value: String(p.id), label: `${p.name} (${p.merchant.name})` }))]}
          />
          <TextField
            form={form}
            name="code"
            value={code}
            onChange={setCode}
            optional
            maxLength={40}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize="characters"
            hint={rulesHint}
          />
        </div>
        <div className="form-actions">
          <SubmitButton pending={ask.isPending}>Request the code</SubmitButton>
        </div>
      </Form>
      {outcome && (
        <div className="results">
          <h3 id={outcomeId} tabIndex={-1} className="section-title">
            {outcome.held ? `You hold ${outcome.code.code} at ${outcome.program} already` : `Code ${outcome.code.code} at ${outcome.program}`}
          </h3>
          <p>
            <StatusPill tone={CODE_STATUS[outcome.code.status].tone}>{CODE_STATUS[outcome.code.status].label}</StatusPill>{' '}
            {outcome.code.status === 'active'
              ? 'Share it: sales with it at the merchant’s checkout are credited to you.'
              : outcome.code.status === 'pending_review'
                ? 'The network reviews it; it credits sales once active.'
                : 'It was refused; ask for another one.'}
          </p>
        </div>
      )}
    </>
  );
}

function CodeList({ codes, names }: { codes: UseQueryResult<CodePage>; names: Map<number, string> }) {
  const fmt = useFormat();
  const rows = codes.data?.data ?? [];
  // Per program (by name), newest first within each.
  const byProgram = useMemo(() => {
    const groups = new Map<number, CouponCode[]>();
    for (const c of rows) groups.set(c.program_id, [...(groups.get(c.program_id) ?? []), c]);
    const label = (id: number) => names.get(id) ?? `Program ${id}`;
    return [...groups.entries()].sort(([a], [b]) => label(a).localeCompare(label(b)));
  }, [rows, names]);
  if (codes.isPending) return <Loading label="Loading your codes…" lines={2} />;
  if (codes.isError) return <ErrorNotice error={codes.error} title="Your codes could not be loaded" onRetry={() => void codes.refetch()} />;
  if (!rows.length) return <p className="empty">No code yet.</p>;
  return (
    <div className="table-wrap" role="region" aria-label="Table of your coupon codes" tabIndex={0}>
      <table>
        <caption className="visually-hidden">Your coupon codes per program, with their status</caption>
        <thead>
          <tr>
            <th scope="col">Program</th>
            <th scope="col">Code</th>
            <th scope="col">Status</th>
            <th scope="col">Requested</th>
          </tr>
        </thead>
        {byProgram.map(([programId, list]) => (
          <tbody key={programId}>
            {list.map((c, i) => (
              <tr key={c.id} data-code={c.code}>
                {i === 0 && (
                  <th scope="rowgroup" rowSpan={list.length}>
                    {names.get(programId) ?? `Program ${programId}`}
                  </th>
                )}
                <td className="mono strong">{c.code}</td>
                <td>
                  <StatusPill tone={CODE_STATUS[c.status].tone}>{CODE_STATUS[c.status].label}</StatusPill>
                </td>
                <td className="nowrap">{fmt.dateTime(c.created_at)}</td>
              </tr>
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}
