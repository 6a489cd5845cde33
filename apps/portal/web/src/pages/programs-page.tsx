import { Page } from '../components/page';

/** (being built for issue 43) */
export function ProgramsPage() {
  return <Page title="Programs">{null}</Page>;
}
