export { createApp } from './app';
export type { TrackerApp } from './app';
