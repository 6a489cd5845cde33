export type { InputOf, JSONSchema, UseCaseDeps } from './usecase';
export { PAGE_INPUT, pageEnvelopeSchema, pageOf, pageSizeInput, skipFor } from './paging';
export type { PageEnvelope } from './paging';
