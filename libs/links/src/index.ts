export { ensureLinks, linkCode, trackedUrl } from './tracked-links';
export type { EnsuredLink, LinkSource, LinkSpec } from './tracked-links';
