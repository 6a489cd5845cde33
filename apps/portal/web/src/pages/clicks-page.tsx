import { Page } from '../components/page';

/** (being built for issue 43) */
export function ClicksPage() {
  return <Page title="Clicks">{null}</Page>;
}
