export { bodyValidator, queryValidator, validatedAgainst } from './validation';
export type { BodyValidator, JsonSchema, QueryValidator } from './validation';
export { isForbiddenAddress } from './addresses';
export { publicUrlProblem } from './public-url';
export { DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_PROBLEM, displayText, isDisplayText, toDisplayText } from './display-text';
