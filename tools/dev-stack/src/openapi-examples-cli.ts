/**
 * `npm run openapi:examples`: records every documented operation's answers from a fresh demo
 * platform (in memory) and writes them beside each app as its document's examples.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { examplesByApp, recordExamples } from './openapi-examples';
import { REPO_ROOT, startPlatform } from './platform';

parseCommandLine(generatedUsage('npm run openapi:examples --', "Records the OpenAPI documents' response examples from the demo data.", {}), {});
const platform = await startPlatform({
  env: { PORT: '8089', NODE_ENV: 'test', LOG_LEVEL: 'silent', FEATURE_TRENDING: 'true' },
  seedProducts: 400,
  credentialsPath: null,
});
try {
  const byApp = examplesByApp(await recordExamples(platform.url, platform.credentials!), platform.url);
  for (const [app, examples] of Object.entries(byApp)) {
    const path = join(REPO_ROOT, 'apps', app, 'src/openapi.examples.json');
    writeFileSync(path, `${JSON.stringify(examples, null, 2)}\n`);
    console.log(`wrote ${path} (${Object.keys(examples).length} operations)`);
  }
} finally {
  await platform.stop();
}
