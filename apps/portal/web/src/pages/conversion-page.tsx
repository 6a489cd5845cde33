import { Page } from '../components/page';

/** (being built for issue 43) */
export function ConversionPage() {
  return <Page title="Conversion">{null}</Page>;
}
