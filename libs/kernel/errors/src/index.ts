export { ERROR_STATUS, statusOf } from './error-codes';
export type { ErrorCode } from './error-codes';
export { ApiError, errorBody, errors } from './api-error';
export type { ApiErrorInit, ErrorBody, ParamError } from './api-error';
