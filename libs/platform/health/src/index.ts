export { withProbes } from './health';
export type { ProbeOptions, ReadinessCheck } from './health';
