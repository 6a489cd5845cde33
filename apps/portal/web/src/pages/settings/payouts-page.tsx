/**
 * Settings, Payouts: the payout method (IBAN + BIC, US ACH, PayPal), the payout currency, the
 * threshold (at or above the network's minimum) and the schedule. A stored method is never shown
 * again: only its type and last 4, and a notice when a payout to it failed. A new method holds the
 * next payout (`method_hold_until`). Owners change them (the password again after 10 minutes: the
 * API client asks for it and retries); everyone else reads them.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { isApiError } from '../../api/client';
import { payoutKeys, payoutSettingsQuery, putPayoutSettings, type PayoutMethodInput, type PayoutSettings, type PayoutSettingsInput } from '../../api/payouts';
import { useAnnounce } from '../../components/announcer';
import { ErrorNotice, Loading, Notice } from '../../components/feedback';
import { ChoiceGroup, Form, SelectField, SubmitButton, TextField, useFormState, type FormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { useFormat } from '../../lib/format';
import { methodInWords, METHOD_TYPES } from '../../lib/payouts';
import { useAccount } from '../../session';
import { AccountGate } from '../account-gate';
import { EMPTY_METHOD, METHOD_LABELS, methodOf, onMethodFields, settingsChangeOf, type MethodField } from './payout-forms';

const TITLE = 'Payouts';
const DOC_TITLE = 'Payouts · Settings';

export function PayoutsSettingsPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <PayoutsSettings />
    </AccountGate>
  );
}

function PayoutsSettings() {
  const account = useAccount();
  const settings = useQuery(payoutSettingsQuery(account.account_id));
  const owner = account.role === 'owner';
  return (
    <Page
      title={TITLE}
      eyebrow="Settings"
      docTitle={DOC_TITLE}
      description={
        <>
          Where and when the network pays you. The balance and the payments are on <Link to="/payments">Payments</Link>.
        </>
      }
    >
      {settings.isPending ? (
        <Section title="Payout method">
          <Loading label="Loading the payout settings…" />
        </Section>
      ) : settings.isError ? (
        <ErrorNotice error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <>
          {!owner && (
            <Notice title="Read only">
              <p>Only owners change the payout settings. Your role is {account.role}.</p>
            </Notice>
          )}
          <MethodSection settings={settings.data} owner={owner} accountId={account.account_id} />
          <ScheduleSection settings={settings.data} owner={owner} accountId={account.account_id} />
        </>
      )}
    </Page>
  );
}

function MethodNotices({ settings }: { settings: PayoutSettings }) {
  const fmt = useFormat();
  return (
    <>
      {settings.method?.failed && (
        <Notice tone="danger" title="The last payout to this method failed">
          <p>The money came back to your balance. Set the method again, checking the account details, so payouts can start again.</p>
        </Notice>
      )}
      {settings.method_hold_until && (
        <Notice tone="warning" title="Payouts are held after the change">
          <p>
            The payout method changed, so payouts wait until {fmt.dateTime(settings.method_hold_until)}: a safety check in case someone else changed it. The
            balance stays yours.
          </p>
        </Notice>
      )}
    </>
  );
}

function MethodSection({ settings, owner, accountId }: { settings: PayoutSettings; owner: boolean; accountId: string }) {
  return (
    <Section
      title="Payout method"
      description="Account details are stored sealed and never shown again, not even to you: only the type and the last 4 characters."
    >
      <MethodNotices settings={settings} />
      <dl className="summary-list">
        <div>
          <dt>Current method</dt>
          <dd>
            {settings.method ? (
              <>
                {METHOD_TYPES[settings.method.type]}: <span className="mono">{methodInWords(settings.method)}</span>
              </>
            ) : (
              'None yet: payouts start once you set one.'
            )}
          </dd>
        </div>
      </dl>
      {owner && <MethodForm accountId={accountId} replacing={!!settings.method} />}
    </Section>
  );
}

/** The form of a method: always empty (a stored method is never read back); cleared once saved. */
function MethodForm({ accountId, replacing }: { accountId: string; replacing: boolean }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const form = useFormState(null, METHOD_LABELS);
  const [draft, setDraft] = useState(EMPTY_METHOD);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (k: MethodField) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));

  const save = useMutation({
    mutationFn: (method: PayoutMethodInput) => putPayoutSettings(accountId, { method }),
    onSuccess: (s) => {
      queryClient.setQueryData(payoutKeys.settings(accountId), s);
      void queryClient.invalidateQueries({ queryKey: payoutKeys.balance(accountId) });
      setDraft({ ...EMPTY_METHOD, type: draft.type });
      form.clear();
      const message = `Payout method saved: ${methodInWords(s.method)}.`;
      setSaved(message);
      announce(message);
    },
    onError: (e) => {
      setSaved(null);
      form.fail(onMethodFields(e));
    },
  });

  const submit = () => {
    setSaved(null);
    const method = methodOf(draft);
    if (isApiError(method)) {
      form.fail(method);
      return;
    }
    save.mutate(method);
  };

  const account = { form, autoComplete: 'off', spellCheck: false } as const;
  return (
    <Form
      form={form}
      onSubmit={submit}
      pending={save.isPending}
      className="form form-narrow"
      label={replacing ? 'Replace the payout method' : 'Set a payout method'}
    >
      <ChoiceGroup
        form={form}
        name="type"
        type="radio"
        options={(Object.keys(METHOD_TYPES) as Array<keyof typeof METHOD_TYPES>).map((k) => ({ value: k, label: METHOD_TYPES[k] }))}
        values={[draft.type]}
        onChange={(v) => {
          form.clear();
          set('type')(v[0] ?? 'iban');
        }}
        hint={replacing ? 'Saving replaces the current method; the next payout then waits 72 hours.' : undefined}
      />
      {draft.type === 'iban' && (
        <>
          <TextField {...account} name="holder_name" hint="As the bank knows it." value={draft.holder_name} onChange={set('holder_name')} />
          <TextField {...account} name="iban" hint="Spaces are fine, e.g. DE89 3704 0044 0532 0130 00." value={draft.iban} onChange={set('iban')} />
          <TextField {...account} name="bic" hint="8 or 11 letters and digits, e.g. COBADEFFXXX." value={draft.bic} onChange={set('bic')} />
        </>
      )}
      {draft.type === 'ach' && (
        <>
          <TextField {...account} name="holder_name" hint="As the bank knows it." value={draft.holder_name} onChange={set('holder_name')} />
          <TextField
            {...account}
            name="routing_number"
            inputMode="numeric"
            hint="9 digits (ABA)."
            value={draft.routing_number}
            onChange={set('routing_number')}
          />
          <TextField
            {...account}
            name="account_number"
            inputMode="numeric"
            hint="4 to 17 digits."
            value={draft.account_number}
            onChange={set('account_number')}
          />
          <SelectField
            form={form}
            name="account_type"
            value={draft.account_type}
            onChange={set('account_type')}
            options={[
              { value: 'checking', label: 'Checking' },
              { value: 'savings', label: 'Savings' },
            ]}
          />
        </>
      )}
      {draft.type === 'paypal' && (
        <>
          <TextField {...account} name="email" type="email" inputMode="email" value={draft.email} onChange={set('email')} />
          <TextField {...account} name="holder_name" optional value={draft.holder_name} onChange={set('holder_name')} />
        </>
      )}
      <div className="form-actions">
        <SubmitButton pending={save.isPending}>Save payout method</SubmitButton>
        {saved && <p className="saved">{saved}</p>}
      </div>
    </Form>
  );
}

const SCHEDULE_LABELS = { currency: 'Payout currency', threshold: 'Threshold', schedule: 'Schedule' };
const SCHEDULES = [
  { value: 'monthly', label: 'Monthly: with the network’s monthly payout run' },
  { value: 'on_request', label: 'On request: when you choose Request payment on Payments' },
];

function ScheduleSection({ settings, owner, accountId }: { settings: PayoutSettings; owner: boolean; accountId: string }) {
  const fmt = useFormat();
  return (
    <Section
      title="Currency, threshold and schedule"
      description="Balances in other currencies are converted at the European Central Bank's reference rate of the day."
    >
      {owner ? (
        <ScheduleForm settings={settings} accountId={accountId} />
      ) : (
        <dl className="summary-list">
          <div>
            <dt>Payout currency</dt>
            <dd>{settings.currency}</dd>
          </div>
          <div>
            <dt>Threshold</dt>
            <dd>
              {fmt.money(settings.threshold, settings.currency)}{' '}
              <span className="muted small">(at least {fmt.money(settings.minimum_threshold, settings.currency)})</span>
            </dd>
          </div>
          <div>
            <dt>Schedule</dt>
            <dd>{SCHEDULES.find((s) => s.value === settings.schedule)?.label ?? settings.schedule}</dd>
          </div>
        </dl>
      )}
    </Section>
  );
}

function ScheduleForm({ settings, accountId }: { settings: PayoutSettings; accountId: string }) {
  const fmt = useFormat();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const form: FormState = useFormState(null, SCHEDULE_LABELS);
  const [currency, setCurrency] = useState(settings.currency);
  const [threshold, setThreshold] = useState(settings.threshold);
  const [schedule, setSchedule] = useState<string>(settings.schedule);
  const [saved, setSaved] = useState<string | null>(null);
  const minimum = settings.minimum_thresholds[currency] ?? settings.minimum_threshold;
  const currencies = Object.keys(settings.minimum_thresholds).sort();

  const save = useMutation({
    mutationFn: (input: PayoutSettingsInput) => putPayoutSettings(accountId, input),
    onSuccess: (s) => {
      queryClient.setQueryData(payoutKeys.settings(accountId), s);
      void queryClient.invalidateQueries({ queryKey: payoutKeys.balance(accountId) });
      // As stored (a threshold raised to a new currency's minimum, "50" as "50.00").
      setCurrency(s.currency);
      setThreshold(s.threshold);
      setSchedule(s.schedule);
      const message = `Payout settings saved: ${s.currency}, threshold ${fmt.money(s.threshold, s.currency)}, ${s.schedule === 'monthly' ? 'monthly' : 'on request'}.`;
      setSaved(message);
      announce(message);
    },
    onError: (e) => {
      setSaved(null);
      form.fail(e);
    },
  });

  const submit = () => {
    setSaved(null);
    const input = settingsChangeOf(settings, { currency, threshold, schedule });
    if (isApiError(input)) {
      form.fail(input);
      return;
    }
    form.clear();
    if (!Object.keys(input).length) {
      setSaved('Nothing to save: no field changed.');
      return;
    }
    save.mutate(input);
  };

  return (
    <Form form={form} onSubmit={submit} pending={save.isPending} className="form form-narrow" label="Currency, threshold and schedule">
      <SelectField
        form={form}
        name="currency"
        hint="The currency you are paid in."
        value={currency}
        onChange={setCurrency}
        options={currencies.map((c) => ({ value: c, label: c }))}
      />
      <TextField
        form={form}
        name="threshold"
        inputMode="decimal"
        hint={`Paid once the available balance reaches this. At least ${fmt.money(minimum, currency)}, the network’s minimum for ${currency}.`}
        value={threshold}
        onChange={setThreshold}
      />
      <ChoiceGroup form={form} name="schedule" type="radio" options={SCHEDULES} values={[schedule]} onChange={(v) => setSchedule(v[0] ?? 'monthly')} />
      <div className="form-actions">
        <SubmitButton pending={save.isPending}>Save payout settings</SubmitButton>
        {saved && <p className="saved">{saved}</p>}
      </div>
    </Form>
  );
}
