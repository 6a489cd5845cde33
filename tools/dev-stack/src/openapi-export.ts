/** Writes every public app's OpenAPI document to a folder (for `npm run openapi:lint`). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '@cw/config';
import { createLogger } from '@cw/logging';
import { createHttpMetrics } from '@cw/metrics';
import { createMemoryRateLimiter, createMemorySlots } from '@cw/ratelimit';
import { createPlatformCaches, type AppDeps } from '@cw/runtime';
import { openApiDocument as publisher } from '@cw/app-publisher-api';
import { openApiDocument as reporting } from '@cw/app-reporting-api';
import { openApiDocument as monetize } from '@cw/app-monetize-api';
import { openApiDocument as feeds } from '@cw/app-feed-service';
import { openApiDocument as tracking } from '@cw/app-tracker';
import { openApiDocument as portal } from '@cw/app-portal';

const out = resolve(process.argv[2] ?? '.local/openapi');
// Documents are built from route specs only; no database is touched.
const config = loadConfig({}, { port: 8080 });
const deps: AppDeps = {
  config,
  logger: createLogger({ level: 'silent' }),
  data: {} as AppDeps['data'],
  limiter: createMemoryRateLimiter(),
  slots: createMemorySlots(),
  caches: createPlatformCaches(config, null),
  metrics: createHttpMetrics({ defaultMetrics: false }),
};
mkdirSync(out, { recursive: true });
for (const [name, build] of Object.entries({ publisher, reporting, monetize, feeds, tracking, portal })) {
  writeFileSync(resolve(out, `${name}.json`), JSON.stringify(build(deps), null, 2));
  console.log(`wrote ${resolve(out, `${name}.json`)}`);
}
