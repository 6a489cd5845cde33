export { resolveMongoUri, runCli, runningLocalPlatform, usage } from './cli';
export { COMMANDS, UsageError } from './commands';
export { credentialsStore, dataDirOwner, livePlatformPid, localRunFiles, storeOf, writeCredentials } from './local-files';
export type { LocalRunFiles } from './local-files';
