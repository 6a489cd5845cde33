export { bodyValidator, queryValidator } from './validation';
export type { BodyValidator, JsonSchema, QueryValidator } from './validation';
