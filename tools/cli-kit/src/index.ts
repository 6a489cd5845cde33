export { generatedUsage, parseCommandLine } from './command-line';
export type { CommandLineOptions } from './command-line';
