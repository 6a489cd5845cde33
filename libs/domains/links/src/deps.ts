import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import type { LinksData } from './data/links.data';

/** The links lib's use cases: its own data and the programs links point into. */
export type LinksDeps = UseCaseDeps<{ links: LinksData; programs: ProgramsData }>;
