/**
 * The README's walkthrough, run as written: every ```sh block of its "Walkthrough" section, in
 * order, as one bash script against the local platform (curl failing on any HTTP error), so a
 * newcomer following it literally cannot meet a broken step.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@cw-tools/testing';
import { REPO_ROOT } from '../src/platform';
import { startPlatform, type Platform } from './support/test-platform';

let platform: Platform;
const dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
const credentialsPath = join(dir, 'credentials.json');

beforeAll(async () => {
  // A real port: the platform's tracked links and feed URLs carry it.
  platform = await startPlatform({
    env: { PORT: String(await freePort()), NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    seedProducts: 400,
    credentialsPath,
    workerIntervalMs: 200,
  });
}, 120_000);
afterAll(async () => platform?.stop());

/** The shell blocks of the README's Walkthrough section, in order. */
export function walkthroughScript(readme: string): string {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Walkthrough\n'));
  if (!section) throw new Error('README.md has no "## Walkthrough" section');
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).join('\n');
}

describe('README walkthrough', () => {
  it('runs top to bottom against the local platform: every persona, every request answered 2xx', async () => {
    const blocks = walkthroughScript(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
    // Any failing command or HTTP status ends the script (curl's body is still shown).
    const script = `set -euo pipefail\ncurl() { command curl -sS --fail-with-body "$@"; }\n${blocks}`;
    const child = spawn('bash', ['-c', script], {
      cwd: REPO_ROOT,
      detached: true,
      env: {
        ...process.env,
        BASE: platform.url,
        CREDS: credentialsPath,
        MONGODB_URI: platform.mongoUri,
        RECEIVER_PORT: String(await freePort()),
        REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 150_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the script and its receiver are gone
    }
    expect(code, out).toBe(0);
    expect(out).toMatch(/click clk_[A-Za-z0-9_-]{40,}/);
    expect(out).toContain('verified sale.created (test)');
    expect(out).toMatch(/verified sale\.approved cnv_\S+ 7\.19 EUR/);
    expect(out).toMatch(/"status":"approved"/);
    expect(out).toMatch(/"Stat":\{"date":"\d{4}-\d{2}-\d{2}","currency":"[A-Z]{3}"/);
    expect(out).toContain('Nordlicht');
    // The SDKs' section: the sale, approved, through each SDK.
    expect(out).toMatch(/\bts cnv_\S+ approved 7\.19 EUR$/m);
    expect(out).toMatch(/^py cnv_\S+ approved 7\.19 EUR$/m);
  }, 180_000);
});
