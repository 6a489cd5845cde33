/**
 * Vitest global setup: the portal's front end built once before any test starts a platform (each
 * would otherwise find it stale at the same moment and build it in parallel on two cores).
 *
 * In a child process that loads only the build module (`ensureWebBuilt`, which swaps a finished
 * build in whole): importing it through `@cw/app-portal` loaded the whole portal app through
 * Vite's module runner first, about 25 s of every run's start on the loaded 2-core machine for a
 * check that usually finds the build fresh (docs/decisions/0061-ci-time.md).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../../..');
const SCRIPT = `
const { ensureWebBuilt } = await import('./apps/portal/src/web-build.ts');
const { DEFAULT_WEB_OUT_DIR } = await import('./apps/portal/web/build.ts');
await ensureWebBuilt(DEFAULT_WEB_OUT_DIR, (m) => console.log(m));
`;

export default async function setup(): Promise<void> {
  // The production bundle the platform serves: Vite follows NODE_ENV, and with the test run's
  // NODE_ENV=test it bundled React's development build (764 kB, not 494), another page than users load.
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`building the portal's front end failed (exit ${code}); see the output above`);
}
