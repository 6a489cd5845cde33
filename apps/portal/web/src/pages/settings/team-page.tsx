/** Settings, Team: members and their roles, pending invitations, inviting (changes: owners). */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { changeRole, invite, keys, membersQuery, removeMember, revokeInvitation } from '../../api/endpoints';
import { ROLES, type Invitation, type Member, type Role } from '../../api/types';
import { useAnnounce } from '../../components/announcer';
import { useConfirm } from '../../components/dialog';
import { ErrorNotice, Loading, Notice, StatusPill, words } from '../../components/feedback';
import { Form, SelectField, SubmitButton, TextField, useFormState } from '../../components/form';
import { Page, Section } from '../../components/page';
import { validateInvite } from '../../generated/validators.js';
import { useFormat } from '../../lib/format';
import { useAccount, useSessionState } from '../../session';
import { AccountGate } from '../account-gate';
import { actorName } from './credential-words';

const TITLE = 'Team';
const DOC_TITLE = 'Team · Settings';

export const ROLE_HELP: Record<Role, string> = {
  owner: 'Owner: everything, including the team and the account.',
  developer: 'Developer: keys, postbacks and links.',
  analyst: 'Analyst: reads reports; changes nothing.',
};

const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: words(r) }));

export function TeamPage() {
  return (
    <AccountGate title={TITLE} docTitle={DOC_TITLE}>
      <Team />
    </AccountGate>
  );
}

function Team() {
  const account = useAccount();
  const list = useQuery(membersQuery(account.account_id));
  const owner = account.role === 'owner';
  return (
    <Page title={TITLE} eyebrow="Settings" docTitle={DOC_TITLE} description="The people who work in this account, and their roles.">
      {!owner && (
        <Notice title="Read only">
          <p>Only owners change the team. Your role is {account.role}.</p>
        </Notice>
      )}
      {list.isPending ? (
        <Section title="Members">
          <Loading label="Loading members…" />
        </Section>
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <>
          <Members accountId={account.account_id} rows={list.data.data} owner={owner} />
          <Invitations accountId={account.account_id} rows={list.data.invitations ?? []} owner={owner} />
          {owner && <InviteForm accountId={account.account_id} />}
        </>
      )}
    </Page>
  );
}

function MemberRole({ accountId, member, isSelf }: { accountId: string; member: Member; isSelf: boolean }) {
  const [role, setRole] = useState<Role>(member.role);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const change = useMutation({
    mutationFn: (r: Role) => changeRole(accountId, member.user_id, r),
    onSuccess: (_r, r) => {
      announce(`${member.email} is now ${r}.`);
      void queryClient.invalidateQueries({ queryKey: keys.members(accountId) });
      if (isSelf) void queryClient.invalidateQueries({ queryKey: keys.session });
    },
    onError: () => setRole(member.role),
  });
  const id = `role-${member.user_id}`;
  return (
    <div className="role-cell">
      <label htmlFor={id} className="visually-hidden">
        Role of {member.email}
      </label>
      <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {ROLE_OPTIONS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {role !== member.role && (
        <button
          type="button"
          className="button button-primary button-small"
          onClick={() => !change.isPending && change.mutate(role)}
          aria-disabled={change.isPending || undefined}
          aria-label={`Change role of ${member.email} to ${role}`}
        >
          Change role
        </button>
      )}
      {change.isError && <ErrorNotice error={change.error} />}
    </div>
  );
}

function Members({ accountId, rows, owner }: { accountId: string; rows: Member[]; owner: boolean }) {
  const fmt = useFormat();
  const confirm = useConfirm();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { session } = useSessionState();
  const remove = useMutation({
    mutationFn: (m: Member) => removeMember(accountId, m.user_id),
    onSuccess: async (_r, m) => {
      if (m.user_id === session.user.id) {
        queryClient.clear();
        await navigate('/dashboard', { replace: true });
        return;
      }
      announce(`${m.email} removed.`);
      void queryClient.invalidateQueries({ queryKey: keys.members(accountId) });
    },
  });
  const ask = async (m: Member, self: boolean) => {
    const ok = await confirm({
      title: self ? 'Leave this account?' : `Remove ${m.email}?`,
      body: self
        ? 'You lose access to this account at once; an owner can invite you again.'
        : 'They lose access to this account at once. Keys they issued keep working until revoked.',
      confirmLabel: self ? 'Yes, leave' : 'Yes, remove',
      danger: true,
    });
    if (ok) remove.mutate(m);
  };
  return (
    <Section title="Members">
      {remove.isError && <ErrorNotice error={remove.error} />}
      <div className="table-wrap" role="region" aria-label="Table of members" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => {
              const self = m.user_id === session.user.id;
              return (
                <tr key={m.user_id}>
                  <td>
                    <span className="strong">{m.name || m.email}</span>
                    {self && <span className="tag">you</span>}
                    {m.name && <p className="muted small">{m.email}</p>}
                  </td>
                  <td>{owner ? <MemberRole accountId={accountId} member={m} isSelf={self} /> : words(m.role)}</td>
                  <td>{fmt.dateTime(m.joined_at)}</td>
                  <td className="row-actions">
                    {owner && (
                      <button
                        type="button"
                        className="button button-danger-quiet button-small"
                        onClick={() => !remove.isPending && void ask(m, self)}
                        aria-disabled={remove.isPending || undefined}
                        aria-label={self ? 'Leave this account' : `Remove ${m.email}`}
                      >
                        {self ? 'Leave' : 'Remove'}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ul className="role-help muted small">
        {ROLES.map((r) => (
          <li key={r}>{ROLE_HELP[r]}</li>
        ))}
      </ul>
    </Section>
  );
}

function Invitations({ accountId, rows, owner }: { accountId: string; rows: Invitation[]; owner: boolean }) {
  const fmt = useFormat();
  const announce = useAnnounce();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (i: Invitation) => revokeInvitation(accountId, i.id),
    onSuccess: (_r, i) => {
      announce(`Invitation to ${i.email} revoked.`);
      void queryClient.invalidateQueries({ queryKey: keys.members(accountId) });
    },
  });
  const ask = async (i: Invitation) => {
    if (
      await confirm({
        title: `Revoke the invitation to ${i.email}?`,
        body: 'The link in their mail stops working.',
        confirmLabel: 'Yes, revoke it',
        danger: true,
      })
    )
      revoke.mutate(i);
  };
  return (
    <Section title="Pending invitations">
      {revoke.isError && <ErrorNotice error={revoke.error} />}
      {rows.length === 0 ? (
        <p className="empty">No pending invitations.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Table of pending invitations" tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Invited by</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>
                    <StatusPill>{words(i.role)}</StatusPill>
                  </td>
                  <td>{actorName(i.invited_by)}</td>
                  <td>{fmt.dateTime(i.expires_at)}</td>
                  <td className="row-actions">
                    {owner && (
                      <button
                        type="button"
                        className="button button-danger-quiet button-small"
                        onClick={() => !revoke.isPending && void ask(i)}
                        aria-disabled={revoke.isPending || undefined}
                        aria-label={`Revoke the invitation to ${i.email}`}
                      >
                        Revoke
                      </button>
                    )}
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

function InviteForm({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [sent, setSent] = useState<string | null>(null);
  const form = useFormState(validateInvite, { email: 'E-mail', role: 'Role' });
  const send = useMutation({
    mutationFn: (input: { email: string; role: Role }) => invite(accountId, input),
    onSuccess: (_r, input) => {
      const message = `Invitation sent to ${input.email}.`;
      setSent(message);
      announce(message);
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: keys.members(accountId) });
    },
    onError: (e) => {
      setSent(null);
      form.fail(e);
    },
  });
  const submit = () => {
    const body = { email: email.trim(), role };
    setSent(null);
    if (form.check(body)) send.mutate(body);
  };
  return (
    <Section title="Invite someone" description="They get a mail with a link that works for a limited time.">
      <Form form={form} onSubmit={submit} pending={send.isPending} className="form form-inline">
        <TextField form={form} name="email" type="email" inputMode="email" autoComplete="off" spellCheck={false} value={email} onChange={setEmail} />
        <SelectField form={form} name="role" value={role} onChange={(v) => setRole(v as Role)} options={ROLE_OPTIONS} hint={ROLE_HELP[role]} />
        <div className="form-actions">
          <SubmitButton pending={send.isPending}>Invite</SubmitButton>
          {sent && <p className="saved">{sent}</p>}
        </div>
      </Form>
    </Section>
  );
}
