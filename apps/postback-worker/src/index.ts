export { createApp } from './app';
export { createWorker } from './worker';
export type { Worker, WorkerDeps } from './worker';
export type { JobDefinition } from './jobs/job';
export { RETRY_JOB, retryScheduler } from './jobs/postbacks.job';
