export { ConfigError, DEFAULT_REDIS_URL, loadConfig, loadBrowserTarget, loadTestTargets, RATE_LIMIT_BUDGETS, requireMongoUri } from './load-config';
export type { BudgetName, ConfigDefaults, PlatformConfig, SigninLimits } from './load-config';
export { BASE_KEY_ID, keyRing } from './key-ring';
export type { KeyRing, SecretKey } from './key-ring';
export { open, seal, sealedWithOlderKey } from './secret-box';
export type { SealedSecret } from './secret-box';
