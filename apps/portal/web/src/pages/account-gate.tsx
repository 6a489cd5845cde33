/** Account pages need an account: someone who belongs to none is told how to get one. */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Notice } from '../components/feedback';
import { Page } from '../components/page';
import { useSessionState } from '../session';

export function AccountGate({ title, docTitle, children }: { title: string; docTitle?: string; children: ReactNode }) {
  const { account, session } = useSessionState();
  if (account) return <>{children}</>;
  return (
    <Page title={title} docTitle={docTitle}>
      <Notice title="No account yet">
        <p>You are not a member of a publisher account. Ask an account owner to invite you, or claim an instant-monetization application from its link.</p>
        <p>
          <Link to="/settings/security">Your sessions and password</Link>
        </p>
        {session.operator && (
          <p>
            <Link to="/operations/review">Go to the operator area</Link>
          </p>
        )}
      </Notice>
    </Page>
  );
}
