import type { AuthData } from '@cw/auth';
import type { CodesData } from '@cw/codes';
import type { LinksData } from '@cw/links';
import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { conversionsModels, type ConversionsData, type ConversionsModels } from './data/conversions.data';

/** The conversions lib's use cases: its own data, the clicks and links sales come from, programs' terms and names, the accounts. */
export type ConversionsDeps = UseCaseDeps<{ conversions: ConversionsData; links: LinksData; programs: ProgramsData; auth: AuthData }>;

/** The merchant's intake: also the coupon codes a sale may come by. */
export type IntakeDeps = ConversionsDeps & { data: { codes: CodesData } };

/** This lib's own models. */
export const own = (deps: { data: { conversions: ConversionsData } }): ConversionsModels => conversionsModels(deps.data.conversions);
