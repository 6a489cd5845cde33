export { resolveMongoUri, runCli, usage } from './cli';
export { COMMANDS, UsageError } from './commands';
