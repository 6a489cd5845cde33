export { createHttpMetrics } from './metrics';
export type { HttpMetrics } from './metrics';
