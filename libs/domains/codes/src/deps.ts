import type { ProgramsData } from '@cw/programs';
import type { UseCaseDeps } from '@cw/usecase';
import { codesModels, type CodesData, type CodesModels } from './data/codes.data';

/** The codes lib's use cases: its own data and the programs (rules, approvals) codes belong to. */
export type CodesDeps = UseCaseDeps<{ codes: CodesData; programs: ProgramsData }>;

/** This lib's own models. */
export const own = (deps: { data: { codes: CodesData } }): CodesModels => codesModels(deps.data.codes);
