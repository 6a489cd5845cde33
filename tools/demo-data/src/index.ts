export { generateDemoData } from './generate';
export type { DemoDataset, PortalLogin, PublisherCredentials, SeedOptions } from './generate';
export { addMissingPortalLogins, createOperatorLogin, createPortalLogin, OPERATOR_EMAIL } from './portal-logins';
export { progressBar } from './progress';
export { Prng } from './prng';
