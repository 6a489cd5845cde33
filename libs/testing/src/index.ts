export { createTestDatabase, redisUrl } from './test-database';
export type { TestDatabase } from './test-database';
