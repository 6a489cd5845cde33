export { createApp } from './app';
export { createWorker } from './worker';
export type { Worker, WorkerDeps } from './worker';
export type { JobDefinition } from './jobs/job';
