/** Settings, Account: name, website, channels, time zone, payout method type, product links' fallback (owners change them); markets read-only. */
import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { accountQuery, keys, patchAccount } from '../../api/endpoints';
import { CHANNELS, PAYOUT_METHOD_TYPES, type Account } from '../../api/types';
import { useAnnounce } from '../../components/announcer';
import { ErrorNotice, Loading, Notice, StatusPill, words } from '../../components/feedback';
import { ChoiceGroup, Form, SelectField, SubmitButton, TextField, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { validateAccountPatch } from '../../generated/validators.js';
import { timeZones } from '../../lib/format';
import { useAccount } from '../../session';
import { AccountGate } from '../account-gate';
import { statusOf } from '../dashboard-format';
import { accountPatchOf } from './account-patch';

const TITLE = 'Account';
const DOC_TITLE = 'Account · Settings';

const PAYOUT_LABELS: Record<string, string> = { bank_account: 'Bank account', paypal: 'PayPal', none: 'None' };

export function AccountPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <AccountSettings />
    </AccountGate>
  );
}

function AccountSettings() {
  const current = useAccount();
  const account = useQuery(accountQuery(current.account_id));
  const owner = current.role === 'owner';
  return (
    <Page title={TITLE} eyebrow="Settings" docTitle={DOC_TITLE} description="How the network knows this account.">
      {account.isPending ? (
        <Section title="Details">
          <Loading label="Loading the account…" />
        </Section>
      ) : account.isError ? (
        <ErrorNotice error={account.error} onRetry={() => void account.refetch()} />
      ) : (
        <>
          {owner ? <AccountForm key={account.data.account_id} account={account.data} /> : <AccountView account={account.data} role={current.role} />}
          <Section title="Set by the network">
            <dl className="summary-list">
              <div>
                <dt>Account id</dt>
                <dd className="mono">{account.data.account_id}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd>
                  <StatusPill tone={statusOf(account.data.status).tone}>{statusOf(account.data.status).label}</StatusPill>
                </dd>
              </div>
              <div>
                <dt>Markets</dt>
                <dd>{account.data.markets.length ? account.data.markets.join(', ') : 'None yet'}</dd>
              </div>
            </dl>
            <p className="muted small">Markets (where you may promote programs) are set by the network when it reviews the account.</p>
          </Section>
        </>
      )}
    </Page>
  );
}

function AccountView({ account, role }: { account: Account; role: string }) {
  return (
    <Section title="Details">
      <Notice title="Read only">
        <p>Only owners change the account. Your role is {role}.</p>
      </Notice>
      <dl className="summary-list">
        <div>
          <dt>Name</dt>
          <dd>{account.name}</dd>
        </div>
        <div>
          <dt>Website</dt>
          <dd className="break">{account.website ?? '—'}</dd>
        </div>
        <div>
          <dt>Channels</dt>
          <dd>{account.channels.length ? account.channels.map(words).join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>Time zone</dt>
          <dd>{account.timezone ?? 'Not set'}</dd>
        </div>
        <div>
          <dt>Payout method</dt>
          <dd>{PAYOUT_LABELS[account.payout_method_type ?? 'none'] ?? words(account.payout_method_type)}</dd>
        </div>
        <div>
          <dt>Sold-out products</dt>
          <dd>{account.link_fallback === false ? 'Visitors go to the program’s home page' : 'Visitors go to the same product at another program'}</dd>
        </div>
      </dl>
    </Section>
  );
}

const LABELS = {
  name: 'Account name',
  website: 'Website',
  channels: 'Channels',
  timezone: 'Time zone',
  payout_method_type: 'Payout method',
  link_fallback: 'Sold-out products',
};
const FALLBACK_OPTIONS = [{ value: 'on', label: 'Send visitors of a product link to the same product at another program' }] as const;

function AccountForm({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [name, setName] = useState(account.name);
  const [website, setWebsite] = useState(account.website ?? '');
  const [channels, setChannels] = useState<string[]>(account.channels);
  const [timezone, setTimezone] = useState(account.timezone ?? '');
  const [payout, setPayout] = useState(account.payout_method_type ?? 'none');
  const [fallback, setFallback] = useState(account.link_fallback !== false);
  const [saved, setSaved] = useState<string | null>(null);
  const form = useFormState(validateAccountPatch, LABELS);
  const zones = useMemo(
    () => [{ value: '', label: 'Not set (your browser’s)' }, ...timeZones(account.timezone).map((z) => ({ value: z, label: z.replace(/_/g, ' ') }))],
    [account.timezone],
  );

  const save = useMutation({
    mutationFn: (patch: Parameters<typeof patchAccount>[1]) => patchAccount(account.account_id, patch),
    onSuccess: (a) => {
      queryClient.setQueryData(keys.account(account.account_id), a);
      void queryClient.invalidateQueries({ queryKey: keys.session });
      setSaved('Account saved.');
      announce('Account saved.');
    },
    onError: (e) => {
      setSaved(null);
      form.fail(e);
    },
  });

  const submit = () => {
    const patch = accountPatchOf(account, { name, website, channels, timezone, payout, fallback });
    setSaved(null);
    if (!Object.keys(patch).length) {
      form.clear();
      setSaved('Nothing to save: no field changed.');
      return;
    }
    if (form.check(patch)) save.mutate(patch);
  };

  return (
    <Section title="Details">
      <Form form={form} onSubmit={submit} pending={save.isPending} className="form form-narrow">
        <TextField form={form} name="name" autoComplete="organization" value={name} onChange={setName} />
        <TextField
          form={form}
          name="website"
          type="url"
          inputMode="url"
          placeholder="https://"
          hint="Where you publish (http or https)."
          value={website}
          onChange={setWebsite}
          optional
        />
        <ChoiceGroup
          form={form}
          name="channels"
          type="checkbox"
          options={CHANNELS.map((c) => ({ value: c, label: words(c) }))}
          values={channels}
          onChange={setChannels}
        />
        <SelectField form={form} name="timezone" hint="Dates in the portal are shown in this zone." value={timezone} onChange={setTimezone} options={zones} />
        <SelectField
          form={form}
          name="payout_method_type"
          hint="Account details are collected by the network, never here."
          value={payout}
          onChange={setPayout}
          options={PAYOUT_METHOD_TYPES.map((p) => ({ value: p, label: PAYOUT_LABELS[p] ?? p }))}
        />
        <ChoiceGroup
          form={form}
          name="link_fallback"
          hint="When a product link’s product is out of stock or no longer sold by its program, its visitors go to the same product (same GTIN) in stock at another program you are approved for, and the click is that program’s. Off: the program’s home page. Each link can also turn it off."
          type="checkbox"
          options={FALLBACK_OPTIONS}
          values={fallback ? ['on'] : []}
          onChange={(v) => setFallback(v.includes('on'))}
        />
        <div className="form-actions">
          <SubmitButton pending={save.isPending}>Save account</SubmitButton>
          {saved && <p className="saved">{saved}</p>}
        </div>
      </Form>
    </Section>
  );
}
