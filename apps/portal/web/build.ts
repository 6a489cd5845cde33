/**
 * Builds the portal's front end: generates the form validators from the API's JSON schemas, then
 * runs Vite with ./vite.config.ts. A stamp (SHA-256 over every source of the build) is written to
 * <outDir>/.stamp, so a caller skips the build when nothing changed (isWebBuildFresh).
 *
 * Vite and the schema modules are imported only when a build runs: a server may import this file
 * for isWebBuildFresh without loading them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_FILES, generateValidators } from './generate-validators';

const WEB_DIR = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = resolve(WEB_DIR, '../../..');
export const DEFAULT_WEB_OUT_DIR = join(REPO_ROOT, 'dist/apps/portal/web');
const STAMP_FILE = '.stamp';

/** Not sources: what the build writes, and dependencies. */
const SKIP_DIRS = new Set(['node_modules', 'generated', 'dist', '.vite']);
/** Unit tests beside the modules: never bundled, so a changed test leaves the build fresh. */
const isUnitTest = (name: string) => name.endsWith('.test.ts');

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(join(dir, entry.name), out);
    } else if (entry.isFile() && !isUnitTest(entry.name)) {
      out.push(join(dir, entry.name));
    }
  }
  return out;
}

/**
 * SHA-256 over every file under apps/portal/web (the generated validators excepted: they derive from
 * the rest; the unit tests too: never bundled), the schema files the validators compile, and the
 * lockfile (the versions of React, Vite...).
 */
export function webSourcesStamp(): string {
  const files = [...walk(WEB_DIR, []), ...SCHEMA_FILES.map((f) => join(REPO_ROOT, f)), join(REPO_ROOT, 'package-lock.json')]
    .filter((f) => existsSync(f))
    .map((f) => relative(REPO_ROOT, f).split(sep).join('/'))
    .sort();
  const hash = createHash('sha256');
  // Builds from before the test run built the production bundle too (Vite follows the caller's
  // NODE_ENV: the tests' global set-up runs this with NODE_ENV=production) are stale.
  hash.update('production\0');
  for (const f of files) {
    hash.update(f);
    hash.update('\0');
    hash.update(
      createHash('sha256')
        .update(readFileSync(join(REPO_ROOT, f)))
        .digest(),
    );
  }
  return hash.digest('hex');
}

/** Whether outDir holds a build of the current sources (its stamp matches and index.html is there). */
export function isWebBuildFresh(outDir: string = DEFAULT_WEB_OUT_DIR): boolean {
  try {
    if (!existsSync(join(outDir, 'index.html'))) return false;
    return readFileSync(join(outDir, STAMP_FILE), 'utf8').trim() === webSourcesStamp();
  } catch {
    return false;
  }
}

export async function buildPortalWeb(opts: { outDir?: string; quiet?: boolean } = {}): Promise<{ outDir: string }> {
  const outDir = resolve(opts.outDir ?? DEFAULT_WEB_OUT_DIR);
  // The stamp of the sources this build reads (taken before, so an edit during the build shows as stale).
  const stamp = webSourcesStamp();
  await generateValidators({ root: REPO_ROOT });
  const { build } = await import('vite');
  await build({
    configFile: join(WEB_DIR, 'vite.config.ts'),
    root: WEB_DIR,
    logLevel: opts.quiet ? 'warn' : 'info',
    build: { outDir, emptyOutDir: true },
  });
  await writeFile(join(outDir, STAMP_FILE), `${stamp}\n`);
  return { outDir };
}
