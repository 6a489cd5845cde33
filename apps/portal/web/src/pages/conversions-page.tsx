import { Page } from '../components/page';

/** (being built for issue 43) */
export function ConversionsPage() {
  return <Page title="Conversions">{null}</Page>;
}
