import { Page } from '../components/page';

/** (being built for issue 43) */
export function LinksPage() {
  return <Page title="Links">{null}</Page>;
}
