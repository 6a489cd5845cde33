import { Link } from 'react-router';
import { Page } from '../components/page';

export function NotFoundPage() {
  return (
    <Page title="Page not found" description="There is no page at this address. It may have moved, or the link may be incomplete.">
      <div className="button-row">
        <Link to="/dashboard" className="button button-primary">
          Go to the dashboard
        </Link>
        <Link to="/signin" className="button button-secondary">
          Sign in
        </Link>
      </div>
    </Page>
  );
}
