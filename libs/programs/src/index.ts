export { APPLY_INPUT, CAMPAIGN_ID_PATTERN, JOINABLE_PROGRAMS_INPUT, LIST_PROGRAMS_INPUT } from './programs.schemas';
export { applyToProgram, campaignMismatch, joinablePrograms, listPrograms, programView, setAssignment } from './programs.service';
export type { ApplyOutcome, AssignmentStatus, ProgramView, Relationship } from './programs.service';
export { APPLICATION_SCHEMA, PROGRAM_SCHEMA } from './program.views';
