import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import type { CatalogCaches } from './caches';
import { catalogModels, type CatalogData, type CatalogModels } from './data/catalog.data';

/** The catalog lib's use cases: its own data, the programs products belong to, and the tracked links of a page. */
export type CatalogDeps = UseCaseDeps<{ catalog: CatalogData; programs: ProgramsData; links: LinksData }> & { caches: CatalogCaches };

/** This lib's own models. */
export const own = (deps: { data: { catalog: CatalogData } }): CatalogModels => catalogModels(deps.data.catalog);
