export { healthMiddleware } from './health';
export type { ReadinessCheck } from './health';
