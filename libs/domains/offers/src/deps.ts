import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { offersModels, type OffersData, type OffersModels } from './data/offers.data';

/** The offers lib's use cases: its own data, the programs offers belong to and the caller's tracked links. */
export type OffersDeps = UseCaseDeps<{ offers: OffersData; programs: ProgramsData; links: LinksData }>;

/** This lib's own models. */
export const own = (deps: { data: { offers: OffersData } }): OffersModels => offersModels(deps.data.offers);
