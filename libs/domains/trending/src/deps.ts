import type { AuthData } from '@cw/auth';
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { trendingModels, type TrendingData, type TrendingModels } from './data/trending.data';

/** The trending lib's use cases: its own plans, programs and memberships, the accounts' subscriptions, tracked links. */
export type TrendingDeps = UseCaseDeps<{ trending: TrendingData; programs: ProgramsData; links: LinksData; auth: AuthData }>;

/** This lib's own models. */
export const own = (deps: { data: { trending: TrendingData } }): TrendingModels => trendingModels(deps.data.trending);
