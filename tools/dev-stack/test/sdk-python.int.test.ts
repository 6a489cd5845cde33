/**
 * The Python SDK as a publisher installs it: its wheel built offline (`pip wheel
 * --no-build-isolation`), installed into a folder of its own, and its unittest suite
 * (libs/sdk/python/tests) run by `python3 -m unittest` against the real local platform.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type CredentialsFile, type Platform } from '../src/platform';
import { startSdkPlatform } from './support/sdk-harness';

const run = promisify(execFile);
const PY_DIR = join(REPO_ROOT, 'libs/sdk/python');
const OFFERS_BUDGET = 2;

let platform: Platform & { credentials: CredentialsFile };
let site: string;

beforeAll(async () => {
  // A small offers budget: the suite's 429 test spends it and meets Retry-After.
  // The budgets' window is 3 s here (60 s in production), so that Retry-After is seconds, not a minute.
  platform = await startSdkPlatform({ RATELIMIT_OFFERS_PER_MIN: String(OFFERS_BUDGET), RATELIMIT_WINDOW_SECONDS: '3' });
  const dir = mkdtempSync(join(tmpdir(), 'sdk-python-'));
  await run('python3', ['-m', 'pip', 'wheel', '--no-build-isolation', '--no-deps', '--no-index', '-w', join(dir, 'dist'), '.'], { cwd: PY_DIR });
  const wheel = readdirSync(join(dir, 'dist')).find((f) => f.endsWith('.whl'))!;
  expect(wheel).toBe('cw_platform_sdk-0.1.0-py3-none-any.whl');
  site = join(dir, 'site');
  await run('python3', ['-m', 'pip', 'install', '--no-index', '--no-deps', '--target', site, join(dir, 'dist', wheel)]);
}, 240_000);

afterAll(async () => platform?.stop());

describe('Python SDK', () => {
  it('passes its unittest suite against the local platform, installed from its wheel', async () => {
    const child = spawn('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
      // Tests import the installed wheel (site), not the sources beside them.
      cwd: PY_DIR,
      env: {
        PATH: process.env.PATH!,
        PYTHONPATH: site,
        PYTHONDONTWRITEBYTECODE: '1',
        CW_BASE_URL: platform.url,
        CW_API_KEY: platform.credentials.publishers[0]!.keys.live,
        CW_TEST_CREDENTIALS: platform.credentialsPath!,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((ok) => child.on('exit', ok));
    expect(code, out).toBe(0);
    expect(out).toMatch(/^OK/m);
    expect(out).not.toMatch(/skipped/);
    // The suite ran from the wheel.
    const where = await run('python3', ['-c', 'import cw_sdk; print(cw_sdk.__file__)'], { env: { PATH: process.env.PATH!, PYTHONPATH: site }, cwd: tmpdir() });
    expect(where.stdout.trim().startsWith(site)).toBe(true);
  }, 420_000);
});
