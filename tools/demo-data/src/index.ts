export { generateDemoData } from './generate';
export type { DemoDataset, PortalLogin, PublisherCredentials, SeedOptions } from './generate';
export { addMissingPortalLogins, createPortalLogin } from './portal-logins';
export { progressBar } from './progress';
export { Prng } from './prng';
