import type { AuthData } from '@cw/auth';
import type { UseCaseDeps } from '@cw/usecase';
import { programsModels, type ProgramsData, type ProgramsModels } from './data/programs.data';

/** The programs lib's use cases: its own data and the accounts (auth). */
export type ProgramsDeps = UseCaseDeps<{ programs: ProgramsData; auth: AuthData }>;

/** This lib's own models. */
export const own = (deps: { data: { programs: ProgramsData } }): ProgramsModels => programsModels(deps.data.programs);
