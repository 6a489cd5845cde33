export { createApp } from './app';
export { createWorker } from './worker';
export type { Worker, WorkerDeps } from './worker';
export type { JobDefinition } from './jobs/job';
export { RETRY_JOB, retryScheduler } from './jobs/postbacks.job';
export { clicksFromStats, LINK_HEALTH_EVERY_MS, LINK_HEALTH_JOB, linkHealthJobs } from './jobs/link-health.job';
