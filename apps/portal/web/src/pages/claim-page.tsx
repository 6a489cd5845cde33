import { useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { isApiError } from '../api/client';
import { claimAccount, claimQuery, optionalSessionQuery } from '../api/endpoints';
import { CHANNELS, type ClaimApplication, type ClaimInput } from '../api/types';
import { ErrorNotice, Loading, Notice, words } from '../components/feedback';
import { ChoiceGroup, Form, SelectField, SubmitButton, TextField, useFormState } from '../components/form';
import { Page } from '../components/page';
import { validateClaim } from '../generated/validators.js';
import { countries } from '../lib/countries';
import { useFormat } from '../lib/format';
import { signInHref } from '../lib/next';
import { storeAccountId } from '../session';

const TITLE = 'Claim your account';

export function ClaimPage() {
  const [params] = useSearchParams();
  const application = params.get('application') ?? '';
  const secret = params.get('access_secret') ?? '';
  if (!application || !secret) {
    return (
      <Page title={TITLE}>
        <Notice tone="danger" title="The link is incomplete" role="alert">
          <p>A claim link carries the application and its access secret. Open the link you were given when the application was opened.</p>
        </Notice>
      </Page>
    );
  }
  return <Claim application={application} secret={secret} />;
}

const count = (v: ClaimApplication['links']) => (typeof v === 'number' ? v : Array.isArray(v) ? v.length : 0);

function Claim({ application, secret }: { application: string; secret: string }) {
  const fmt = useFormat();
  const app = useQuery(claimQuery(application, secret));
  const session = useQuery(optionalSessionQuery());
  const here = `/claim?application=${encodeURIComponent(application)}&access_secret=${encodeURIComponent(secret)}`;

  if (app.isPending || session.isPending) {
    return (
      <Page title={TITLE}>
        <Loading label="Loading the application…" />
      </Page>
    );
  }
  const needsSignIn = !session.data;
  if (app.isError && !(isApiError(app.error) && app.error.status === 401 && needsSignIn)) {
    return (
      <Page title={TITLE}>
        <ErrorNotice error={app.error} title="This application cannot be claimed" onRetry={() => void app.refetch()} />
      </Page>
    );
  }
  const data = app.data ?? null;
  return (
    <Page title={TITLE} description="Your instant-monetization links become a publisher account you own. The network reviews it before payouts.">
      {data && (
        <dl className="summary-list">
          <div>
            <dt>Application</dt>
            <dd className="mono">{data.application_id}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>{words(data.status)}</dd>
          </div>
          {data.display_name && (
            <div>
              <dt>Name</dt>
              <dd>{data.display_name}</dd>
            </div>
          )}
          {data.website && (
            <div>
              <dt>Website</dt>
              <dd className="break">{data.website}</dd>
            </div>
          )}
          <div>
            <dt>Links</dt>
            <dd>{fmt.number(count(data.links))}</dd>
          </div>
          <div>
            <dt>Clicks</dt>
            <dd>{fmt.number(count(data.clicks))}</dd>
          </div>
          {data.claim_deadline && (
            <div>
              <dt>Claim by</dt>
              <dd>{fmt.dateTime(data.claim_deadline)}</dd>
            </div>
          )}
        </dl>
      )}
      {needsSignIn ? (
        <div className="stack">
          <p>To claim it, sign in or create your sign-in first; you will come back here.</p>
          <div className="button-row">
            <Link to={`/signup?next=${encodeURIComponent(here)}`} className="button button-primary">
              Create an account
            </Link>
            <Link to={signInHref(here)} className="button button-secondary">
              Sign in
            </Link>
          </div>
        </div>
      ) : data ? (
        <ClaimForm app={data} application={application} secret={secret} />
      ) : null}
    </Page>
  );
}

const LABELS = {
  display_name: 'Display name',
  website: 'Website',
  channels: 'Channels',
  country: 'Country',
  application: 'Application',
  access_secret: 'Access secret',
};

function ClaimForm({ app, application, secret }: { app: ClaimApplication; application: string; secret: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [displayName, setDisplayName] = useState(app.display_name ?? '');
  const [website, setWebsite] = useState(app.website ?? '');
  const [channels, setChannels] = useState<string[]>(app.channels ?? []);
  const [country, setCountry] = useState(app.country ?? '');
  const form = useFormState(validateClaim, LABELS);
  const countryOptions = useMemo(() => [{ value: '', label: 'Choose a country' }, ...countries().map((c) => ({ value: c.code, label: c.name }))], []);

  const claim = useMutation({
    mutationFn: claimAccount,
    onSuccess: async (r) => {
      storeAccountId(r.account_id);
      queryClient.clear();
      await navigate('/dashboard', { replace: true });
    },
    onError: form.fail,
  });

  const submit = () => {
    const body = { application, access_secret: secret, display_name: displayName.trim(), website: website.trim(), channels, country };
    if (form.check<ClaimInput>(body)) claim.mutate(body);
  };

  return (
    <Form form={form} onSubmit={submit} pending={claim.isPending}>
      <h2 className="section-title">Your profile</h2>
      <TextField form={form} name="display_name" autoComplete="nickname" value={displayName} onChange={setDisplayName} />
      <TextField
        form={form}
        name="website"
        type="url"
        inputMode="url"
        placeholder="https://"
        hint="Your site or profile: a public http(s) address."
        value={website}
        onChange={setWebsite}
      />
      <ChoiceGroup
        form={form}
        name="channels"
        type="checkbox"
        hint="Where you publish the links (one or more)."
        options={CHANNELS.map((c) => ({ value: c, label: words(c) }))}
        values={channels}
        onChange={setChannels}
      />
      <SelectField form={form} name="country" value={country} onChange={setCountry} options={countryOptions} />
      <SubmitButton pending={claim.isPending}>Claim account</SubmitButton>
    </Form>
  );
}
