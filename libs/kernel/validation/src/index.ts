export { bodyValidator, queryValidator, validatedAgainst } from './validation';
export type { BodyValidator, JsonSchema, QueryValidator } from './validation';
export { isForbiddenAddress } from './addresses';
export { publicUrlProblem } from './public-url';
