/**
 * Settings, Tax: who the network pays, for its tax filings. Individual or company, legal name,
 * postal address, country of tax residence, a VAT id; a US person's W-9 (SSN, ITIN or EIN), anyone
 * else's W-8BEN / W-8BEN-E (country of citizenship or incorporation, foreign taxpayer id, an
 * optional treaty claim), signed by typing the legal name (the server records the date). The
 * stored profile is shown with its ids masked; the form never reads them back. Owners only (the
 * password again after 10 minutes: the API client asks for it and retries).
 */
import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { isApiError } from '../../api/client';
import { payoutKeys } from '../../api/payouts';
import { putTaxProfile, taxKeys, taxProfileQuery, type TaxProfileInput, type TaxProfileState, type TaxProfileView } from '../../api/tax';
import { useAnnounce } from '../../components/announcer';
import { ErrorNotice, Loading, Notice } from '../../components/feedback';
import { ChoiceGroup, Form, SelectField, SubmitButton, TextField, Toggle, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { countries } from '../../lib/countries';
import { useFormat } from '../../lib/format';
import { useAccount } from '../../session';
import { AccountGate } from '../account-gate';
import { EMPTY_TAX, LABELS, onFormFields, taxInputOf, type Field } from './tax-form';

const TITLE = 'Tax';
const DOC_TITLE = 'Tax · Settings';

const FORMS = { w9: 'W-9 (US person)', w8ben: 'W-8BEN (individual outside the US)', w8ben_e: 'W-8BEN-E (company outside the US)' } as const;
const TIN_KINDS = { ssn: 'SSN or ITIN', ein: 'EIN', foreign: 'Foreign taxpayer id' } as const;

export function TaxSettingsPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <TaxSettings />
    </AccountGate>
  );
}

function TaxSettings() {
  const account = useAccount();
  const owner = account.role === 'owner';
  return (
    <Page
      title={TITLE}
      eyebrow="Settings"
      docTitle={DOC_TITLE}
      description={
        <>
          The details the network files for the payments it makes to you. Where and when you are paid is in <Link to="/settings/payouts">Payouts</Link>.
        </>
      }
    >
      {owner ? (
        <OwnerTax accountId={account.account_id} />
      ) : (
        <Notice title="Owners only">
          <p>Only owners see and change the tax profile: it holds taxpayer ids. Your role is {account.role}.</p>
        </Notice>
      )}
    </Page>
  );
}

function OwnerTax({ accountId }: { accountId: string }) {
  const state = useQuery(taxProfileQuery(accountId));
  if (state.isPending)
    return (
      <Section title="Tax profile">
        <Loading label="Loading the tax profile…" />
      </Section>
    );
  if (state.isError) return <ErrorNotice error={state.error} onRetry={() => void state.refetch()} />;
  return (
    <>
      <HoldNotice state={state.data} />
      <CurrentProfile profile={state.data.profile} />
      <Section
        title={state.data.profile ? 'Replace the tax profile' : 'Set the tax profile'}
        description="Stored sealed. Taxpayer and VAT ids are never shown again, not even to you: only their last 4 characters."
      >
        <TaxForm accountId={accountId} />
      </Section>
    </>
  );
}

function HoldNotice({ state }: { state: TaxProfileState }) {
  if (state.payouts_held)
    return (
      <Notice tone="warning" title="Payouts wait for your tax profile">
        <p>The network needs the tax details of payees in your country before it pays them. Set them below; your balance stays yours meanwhile.</p>
      </Notice>
    );
  if (!state.profile)
    return (
      <Notice title="No tax profile yet">
        <p>Payouts to you do not need one today. Setting it now puts your tax details on your statements.</p>
      </Notice>
    );
  return null;
}

function CurrentProfile({ profile }: { profile: TaxProfileView | null }) {
  const fmt = useFormat();
  const names = useMemo(() => new Map(countries().map((c) => [c.code, c.name])), []);
  const country = (code: string) => names.get(code) ?? code;
  if (!profile) return null;
  const a = profile.address;
  return (
    <Section title="Current tax profile">
      <dl className="summary-list">
        <div>
          <dt>Payee</dt>
          <dd>{profile.kind === 'company' ? 'Company' : 'Individual'}</dd>
        </div>
        <div>
          <dt>Legal name</dt>
          <dd>{profile.legal_name}</dd>
        </div>
        <div>
          <dt>Address</dt>
          <dd>
            {[...a.lines, [a.postal_code, a.city].join(' '), a.region, country(a.country)].filter(Boolean).map((line, i) => (
              <span key={`${i}-${line}`}>
                {i > 0 && <br />}
                {line}
              </span>
            ))}
          </dd>
        </div>
        <div>
          <dt>Country of tax residence</dt>
          <dd>{country(profile.country)}</dd>
        </div>
        <div>
          <dt>Form</dt>
          <dd>{FORMS[profile.form]}</dd>
        </div>
        <div>
          <dt>Taxpayer id</dt>
          <dd>
            {profile.tin_kind ? `${TIN_KINDS[profile.tin_kind]}: ` : ''}
            <span className="mono">{profile.tin ?? '—'}</span>
          </dd>
        </div>
        <div>
          <dt>VAT id</dt>
          <dd className="mono">{profile.vat_id ?? '—'}</dd>
        </div>
        {profile.w8 && (
          <div>
            <dt>{profile.kind === 'company' ? 'Country of incorporation' : 'Country of citizenship'}</dt>
            <dd>{country(profile.w8.country)}</dd>
          </div>
        )}
        {profile.w8 && (
          <div>
            <dt>Treaty claim</dt>
            <dd>
              {profile.w8.treaty
                ? `${country(profile.w8.treaty.country)}, article ${profile.w8.treaty.article}, ${profile.w8.treaty.rate} % withholding`
                : 'None'}
            </dd>
          </div>
        )}
        <div>
          <dt>Signed</dt>
          <dd>
            {profile.signed_by}, {fmt.dateTime(profile.signed_at)}
          </dd>
        </div>
      </dl>
    </Section>
  );
}

/** The form: always empty (a stored profile's ids are never read back); cleared once saved. */
function TaxForm({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const form = useFormState(null, LABELS);
  const [draft, setDraft] = useState(EMPTY_TAX);
  const [treaty, setTreaty] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (k: Field) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const allCountries = useMemo(() => countries().map((c) => ({ value: c.code, label: c.name })), []);
  const us = draft.country === 'US';
  const company = draft.kind === 'company';

  const save = useMutation({
    mutationFn: (input: TaxProfileInput) => putTaxProfile(accountId, input),
    onSuccess: (s) => {
      queryClient.setQueryData(taxKeys.profile(accountId), s);
      void queryClient.invalidateQueries({ queryKey: payoutKeys.balance(accountId) });
      setDraft(EMPTY_TAX);
      setTreaty(false);
      form.clear();
      const message = `Tax profile saved and signed: ${s.profile ? FORMS[s.profile.form] : ''}${s.profile?.tin ? `, taxpayer id ending ${s.profile.tin.slice(-4)}` : ''}.`;
      setSaved(message);
      announce(message);
    },
    onError: (e) => {
      setSaved(null);
      form.fail(onFormFields(e));
    },
  });

  const submit = () => {
    setSaved(null);
    const input = taxInputOf(draft, treaty);
    if (isApiError(input)) {
      form.fail(input);
      return;
    }
    save.mutate(input);
  };

  const secret = { form, autoComplete: 'off', spellCheck: false } as const;
  return (
    <Form form={form} onSubmit={submit} pending={save.isPending} className="form form-narrow" label="Tax profile">
      <ChoiceGroup
        form={form}
        name="kind"
        type="radio"
        options={[
          { value: 'individual', label: 'Individual (a person, a sole proprietor)' },
          { value: 'company', label: 'Company' },
        ]}
        values={[draft.kind]}
        onChange={(v) => set('kind')(v[0] ?? 'individual')}
      />
      <TextField
        form={form}
        name="legal_name"
        autoComplete={company ? 'organization' : 'name'}
        hint="As the tax authority knows it."
        value={draft.legal_name}
        onChange={set('legal_name')}
      />
      <SelectField
        form={form}
        name="country"
        hint={company ? 'Where the company is resident for tax.' : 'Where you are resident for tax. United States: a W-9; elsewhere a W-8.'}
        value={draft.country}
        onChange={(v) => setDraft((d) => ({ ...d, country: v, address_country: d.line1 ? d.address_country : v }))}
        options={allCountries}
      />
      <TextField form={form} name="line1" autoComplete="address-line1" value={draft.line1} onChange={set('line1')} />
      <TextField form={form} name="line2" optional autoComplete="address-line2" value={draft.line2} onChange={set('line2')} />
      <TextField form={form} name="city" autoComplete="address-level2" value={draft.city} onChange={set('city')} />
      <TextField
        form={form}
        name="postal_code"
        autoComplete="postal-code"
        hint={draft.address_country === 'US' ? 'ZIP code: 12345 or 12345-6789.' : undefined}
        value={draft.postal_code}
        onChange={set('postal_code')}
      />
      <TextField
        form={form}
        name="region"
        optional={draft.address_country !== 'US'}
        autoComplete="address-level1"
        hint={draft.address_country === 'US' ? 'The 2-letter state code, e.g. CA.' : undefined}
        value={draft.region}
        onChange={set('region')}
      />
      <SelectField form={form} name="address_country" value={draft.address_country} onChange={set('address_country')} options={allCountries} />
      <TextField
        {...secret}
        name="vat_id"
        optional
        hint="With its country prefix, e.g. DE123456789 (EU member states, GB, CH, NO)."
        value={draft.vat_id}
        onChange={set('vat_id')}
      />
      {us ? (
        <>
          {!company && (
            <ChoiceGroup
              form={form}
              name="tin_kind"
              type="radio"
              options={[
                { value: 'ssn', label: 'SSN or ITIN' },
                { value: 'ein', label: 'EIN (a sole proprietor’s business)' },
              ]}
              values={[draft.tin_kind]}
              onChange={(v) => set('tin_kind')(v[0] ?? 'ssn')}
            />
          )}
          <TextField
            {...secret}
            name="tin"
            inputMode="numeric"
            hint={company || draft.tin_kind === 'ein' ? '9 digits, e.g. 12-3456789.' : '9 digits, e.g. 123-45-6789.'}
            value={draft.tin}
            onChange={set('tin')}
          />
        </>
      ) : (
        <>
          <SelectField
            form={form}
            name="w8_country"
            label={company ? 'Country of incorporation' : 'Country of citizenship'}
            value={draft.w8_country}
            onChange={set('w8_country')}
            options={[{ value: '', label: 'Choose a country' }, ...allCountries]}
          />
          <TextField
            {...secret}
            name="foreign_tin"
            hint="The taxpayer id of your country of residence."
            value={draft.foreign_tin}
            onChange={set('foreign_tin')}
          />
          <Toggle
            form={form}
            name="treaty"
            label="Claim the benefits of a tax treaty"
            hint="With the country of residence above."
            checked={treaty}
            onChange={setTreaty}
          />
          {treaty && (
            <>
              <TextField
                form={form}
                name="treaty_article"
                hint="With its paragraph, e.g. 7 or 12(2)."
                value={draft.treaty_article}
                onChange={set('treaty_article')}
              />
              <TextField form={form} name="treaty_rate" inputMode="decimal" hint="0 to 30." value={draft.treaty_rate} onChange={set('treaty_rate')} />
            </>
          )}
        </>
      )}
      <TextField
        form={form}
        name="signature"
        autoComplete="off"
        hint={`Typing your legal name signs the ${us ? 'W-9' : company ? 'W-8BEN-E' : 'W-8BEN'}: you certify that these details are correct. The date is recorded.`}
        value={draft.signature}
        onChange={set('signature')}
      />
      <div className="form-actions">
        <SubmitButton pending={save.isPending}>Sign and save tax profile</SubmitButton>
        {saved && <p className="saved">{saved}</p>}
      </div>
    </Form>
  );
}
