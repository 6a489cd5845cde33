export {
  CODE_PAGE_SCHEMA,
  CODE_RULES_INPUT,
  CODE_RULES_SCHEMA,
  CODE_SCHEMA,
  codeView,
  getCodeRules,
  LIST_CODES_INPUT,
  listCodes,
  MAX_CODES_PER_PROGRAM,
  REQUEST_CODE_INPUT,
  requestCode,
} from './codes.service';
export { LIST_CODES, REQUEST_CODE } from './code.operations';
export { codeProblem, DEFAULT_CODE_RULES, makeCode, normaliseCode, rulesOf } from './code-rules';
export type { CodeRules } from './code-rules';
export { OPERATOR_LIST_CODES_INPUT, operatorListCodes, operatorReviewCode, REVIEW_CODE_INPUT } from './operator.service';
export type { OperatorCodesDeps } from './operator.service';
export { CodesData, codesDomain } from './data/codes.data';
export { CODE_STATUSES } from './data/code.schema';
export type { CodeDoc, CodeRow, CodeStatus } from './data/code.schema';
export type { CodesDeps } from './deps';
