export { createApp, openApiDocument } from './app';
export type { TrackerApp } from './app';
