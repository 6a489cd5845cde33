export { generateDemoData } from './generate';
export type { DemoDataset, PublisherCredentials, SeedOptions } from './generate';
export { progressBar } from './progress';
export { Prng } from './prng';
