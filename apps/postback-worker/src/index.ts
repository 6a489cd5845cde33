export { createApp } from './app';
export { createWorker } from './worker';
export type { JobDefinition, Worker, WorkerDeps } from './worker';
