export { APPLY_INPUT, CAMPAIGN_ID_PATTERN, JOINABLE_PROGRAMS_INPUT, LIST_PROGRAMS_INPUT, PROGRAM_BY_ID_INPUT } from './programs.schemas';
export { applyToProgram, merchantMismatch, joinablePrograms, listPrograms, programById, programView, setAssignment } from './programs.service';
export type { ApplyOutcome, AssignmentStatus, ProgramView, Relationship } from './programs.service';
export { APPLICATION_SCHEMA, PROGRAM_SCHEMA } from './program.views';
export { APPLY_TO_PROGRAM, JOINABLE_PROGRAMS, LIST_PROGRAMS } from './program.operations';
export { MERCHANT_NAMES_CACHE, ProgramsData, programsDomain } from './data/programs.data';
export type { AssignmentRow, InstantFilter, MembershipRow, MerchantInput, ProgramInput, ProgramRow } from './data/programs.data';
export type { MembershipDoc } from './data/membership.schema';
export type { MerchantDoc } from './data/merchant.schema';
export type { ProgramDoc } from './data/program.schema';
export type { ProgramsDeps } from './deps';
export {
  operatorCreateMerchant,
  operatorCreateProgram,
  operatorListMerchants,
  operatorListPrograms,
  operatorSetAssignment,
  operatorSetProgramStatus,
  PROGRAM_STATUSES,
} from './operator.service';
export type { NewProgram, OperatorProgramsDeps, ProgramStatus } from './operator.service';
