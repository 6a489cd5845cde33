/** Settings, Notifications: which mail the signed-in person gets (their own choices, whatever account they look from). */
import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notificationSettingsQuery, notificationsKey, saveNotificationSettings, type NotificationSettings } from '../../api/notifications';
import { useAnnounce } from '../../components/announcer';
import { ErrorNotice, Loading, Notice } from '../../components/feedback';
import { Form, SelectField, SubmitButton, Toggle, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { timeZones } from '../../lib/format';

const DOC_TITLE = 'Notifications · Settings';

const ROLE_WORDS: Record<string, string> = { owner: 'owners', developer: 'developers', analyst: 'analysts' };
const audience = (roles: string[]) =>
  roles.length === 3 ? 'Everyone in the account gets it.' : `Only ${roles.map((r) => ROLE_WORDS[r] ?? r).join(' and ')} get it.`;

export function NotificationsPage() {
  const settings = useQuery(notificationSettingsQuery());
  return (
    <Page
      title="Notifications"
      eyebrow="Settings"
      docTitle={DOC_TITLE}
      description="The mail you get about your accounts. These are your own settings: they apply in every account you belong to. Every such mail also has a link that turns its kind off."
    >
      {settings.isPending ? (
        <Loading label="Loading your notification settings…" />
      ) : settings.isError ? (
        <ErrorNotice error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <Choices settings={settings.data} />
      )}
    </Page>
  );
}

function Choices({ settings }: { settings: NotificationSettings }) {
  const { kinds } = settings;
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const form = useFormState(null, { ...Object.fromEntries(kinds.map((k) => [k.kind, k.label])), timezone: 'Your time zone' });
  const [values, setValues] = useState<Record<string, boolean>>(() => Object.fromEntries(kinds.map((k) => [k.kind, k.enabled])));
  const [timezone, setTimezone] = useState(settings.timezone ?? '');
  const [saved, setSaved] = useState(false);
  useEffect(() => setValues(Object.fromEntries(kinds.map((k) => [k.kind, k.enabled]))), [kinds]);
  useEffect(() => setTimezone(settings.timezone ?? ''), [settings.timezone]);
  const zones = useMemo(
    () => [{ value: '', label: 'Not set (each account’s time zone)' }, ...timeZones(settings.timezone).map((z) => ({ value: z, label: z.replace(/_/g, ' ') }))],
    [settings.timezone],
  );
  const save = useMutation({
    mutationFn: saveNotificationSettings,
    onSuccess: (data) => {
      queryClient.setQueryData(notificationsKey, data);
      setSaved(true);
      announce('Notification settings saved.');
    },
    onError: (e) => form.fail(e),
  });
  const changed = kinds.some((k) => values[k.kind] !== k.enabled) || timezone !== (settings.timezone ?? '');
  return (
    <Section title="Mail you get" description="Turn a kind off and no mail of it reaches you; turn it on again whenever you like.">
      <Form
        form={form}
        pending={save.isPending}
        label="Notification settings"
        onSubmit={() => {
          setSaved(false);
          save.mutate({ kinds: values, timezone: timezone || null });
        }}
      >
        <SelectField
          form={form}
          name="timezone"
          hint="Your weekly summary covers your Monday to Sunday and arrives from Monday 08:00 in this zone. Not set: each account’s time zone, else UTC."
          value={timezone}
          onChange={(v) => {
            setSaved(false);
            setTimezone(v);
          }}
          options={zones}
        />
        {kinds.map((k) => (
          <Toggle
            key={k.kind}
            form={form}
            name={k.kind}
            label={k.label}
            checked={values[k.kind] ?? false}
            onChange={(v) => {
              setSaved(false);
              setValues((old) => ({ ...old, [k.kind]: v }));
            }}
            hint={
              <>
                {k.description} {audience(k.roles)}
                {!k.receives && ' Your role in your accounts does not get this mail now; your choice applies if that changes.'}
              </>
            }
          />
        ))}
        {save.isError && <ErrorNotice error={save.error} />}
        {saved && !changed && (
          <Notice tone="success" title="Saved" role="status">
            Your notification settings are saved.
          </Notice>
        )}
        <SubmitButton pending={save.isPending}>Save notification settings</SubmitButton>
      </Form>
    </Section>
  );
}
