import { Page } from '../components/page';

/** (being built for issue 43) */
export function ProductsPage() {
  return <Page title="Products">{null}</Page>;
}
