export { operatorUseCase, useCase } from './usecase';
export type { InputOf, JSONSchema, OperatorUseCase, UseCase, UseCaseDeps } from './usecase';
export { CURSOR_PAGING, MAX_SKIP, PAGE_INPUT, pageEnvelopeSchema, pageOf, pageSizeInput, pageWindow, skipFor } from './paging';
export type { CursorPage, ListScope, ListSort, PageEnvelope, PageWindow } from './paging';
export { serializerFor, UndeclaredFieldError } from './serializer';
export type { Serializer } from './serializer';
