/** Settings, Apps: the apps and agents acting for the account through OAuth (who allowed them, what they may do), revoke. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { appsKey, appsQuery, revokeApp, SCOPE_WORDS, type AppGrant } from '../../api/oauth';
import { useAnnounce } from '../../components/announcer';
import { useConfirm } from '../../components/dialog';
import { ErrorNotice, Loading, StatusPill } from '../../components/feedback';
import { Page, Section } from '../../components/page';
import { useFormat } from '../../lib/format';
import { useAccount } from '../../session';
import { AccountGate } from '../account-gate';

const TITLE = 'Apps';
const DOC_TITLE = 'Apps · Settings';

const nameOf = (g: AppGrant) => g.app.name ?? 'Unnamed app';

export function AppsPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <Apps />
    </AccountGate>
  );
}

function Apps() {
  const account = useAccount();
  const list = useQuery(appsQuery(account.account_id));
  return (
    <Page
      title={TITLE}
      eyebrow="Settings"
      docTitle={DOC_TITLE}
      description="Apps and agents (MCP clients, tools) someone allowed to act for this account through OAuth. Each acts only within the scopes it was given; revoking one stops it at its next request."
    >
      {list.isPending ? (
        <Section title="Connected apps">
          <Loading label="Loading apps…" />
        </Section>
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <GrantTable accountId={account.account_id} rows={list.data.data} />
      )}
    </Page>
  );
}

function GrantTable({ accountId, rows }: { accountId: string; rows: AppGrant[] }) {
  const fmt = useFormat();
  const confirm = useConfirm();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (g: AppGrant) => revokeApp(accountId, g.id),
    onSuccess: (_r, g) => {
      announce(`${nameOf(g)} revoked.`);
      void queryClient.invalidateQueries({ queryKey: appsKey(accountId) });
    },
  });
  const ask = async (g: AppGrant) => {
    const ok = await confirm({
      title: `Revoke ${nameOf(g)}?`,
      body: 'The app can no longer act for this account: its refresh token ends now, its access token at its next request. To use it again, connect it again.',
      confirmLabel: 'Yes, revoke the app',
      danger: true,
    });
    if (ok) revoke.mutate(g);
  };

  return (
    <Section title="Connected apps" description="Newest first.">
      {revoke.isError && <ErrorNotice error={revoke.error} />}
      {rows.length === 0 ? (
        <p className="empty">No app acts for this account. An app asks for access when you connect it (for example by pasting the MCP URL into an agent).</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of connected apps" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Allowed by</th>
                <th scope="col">May</th>
                <th scope="col">For</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((g) => (
                <tr key={g.id}>
                  <td>
                    {nameOf(g)}
                    {g.app.disabled && <StatusPill tone="danger">Disabled</StatusPill>}
                    {g.app.redirect_hosts.length > 0 && <p className="muted small">{g.app.redirect_hosts.join(', ')}</p>}
                  </td>
                  <td>{g.granted_by?.email ?? <span className="muted">—</span>}</td>
                  <td>
                    <ul className="plain-list">
                      {g.scopes.map((s) => (
                        <li key={s}>
                          {SCOPE_WORDS[s] ?? s} <code className="muted small">{s}</code>
                        </li>
                      ))}
                      {g.offline_access && <li className="muted small">{SCOPE_WORDS.offline_access}</li>}
                    </ul>
                  </td>
                  <td>{g.resources.map((r) => r.label).join(', ')}</td>
                  <td className="nowrap">{fmt.dateTime(g.created_at)}</td>
                  <td className="nowrap">{g.last_used_at ? fmt.dateTime(g.last_used_at) : <span className="muted">never</span>}</td>
                  <td className="row-actions">
                    <button
                      type="button"
                      className="button button-danger-quiet button-small"
                      aria-label={`Revoke ${nameOf(g)}`}
                      aria-disabled={revoke.isPending || undefined}
                      onClick={() => !revoke.isPending && void ask(g)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
