export { createApp, openApiDocument } from './app';
