export { openServiceDeps } from './service-deps';
export type { AppDeps, ServiceDeps } from './service-deps';
export { runHttpService } from './run-http-service';
export type { RunOptions } from './run-http-service';
export { closeServer } from './close-server';
