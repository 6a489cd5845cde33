export { openServiceDeps } from './service-deps';
export type { AppDeps, ServiceDeps } from './service-deps';
export { runHttpService } from './run-http-service';
export type { RunOptions } from './run-http-service';
export { closeServer } from './close-server';
export { API_KEY_SCHEMES, API_KEY_SECURITY, API_VERSION, apiDocument, createPlatformApp, defineApp } from './platform-app';
export type { ApiDescription, AppDefinition, PlatformAppOptions } from './platform-app';
export { createHttpServer, DEFAULT_SERVER_LIMITS } from './http-server';
export type { ServerLimits } from './http-server';
