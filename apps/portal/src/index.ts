export { createApp, defaultWebDir, mailSettled, openApiDocument, PREFIX } from './app';
export type { PortalOptions } from './app';
export { CONTENT_SECURITY_POLICY, PAGE_PREFIXES, wantsHtml } from './web';
export { ensureWebBuilt } from './web-build';
