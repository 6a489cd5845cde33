import { Page } from '../components/page';

/** (being built for issue 43) */
export function PaymentsPage() {
  return <Page title="Payments">{null}</Page>;
}
