export { createTestDatabase, redisUrl } from './test-database';
export type { TestDatabase } from './test-database';
export { createTestDeps } from './test-deps';
export type { TestDeps, TestDepsOptions } from './test-deps';
export { expectErrorShape, expectStandardHeaders } from './http-assertions';
export { describeServiceBasics } from './service-basics';
export { anyCase, caseFor, invalidValue, operationsOf, validValue } from './openapi-fuzz';
export type { FuzzCase, FuzzOperation, OpenApiDocument } from './openapi-fuzz';
