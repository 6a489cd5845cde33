/**
 * The front end is built once and reused until its sources change (a stamp of them is kept beside
 * the build): `npm start` builds it on first start (seconds) and starts at once after. Concurrent
 * starters (parallel tests) each build into a folder of their own and swap it in whole.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';

export async function ensureWebBuilt(outDir: string, say: (m: string) => void = () => undefined): Promise<'fresh' | 'built'> {
  const build = await import('../web/build');
  if (build.isWebBuildFresh(outDir)) return 'fresh';
  say('building the portal front end (once: reused until its sources change)...');
  const started = Date.now();
  const tmp = `${outDir}.building-${process.pid}-${Date.now()}`;
  try {
    await build.buildPortalWeb({ outDir: tmp, quiet: true });
    // Another starter may have finished first: its build is as good as this one.
    if (!build.isWebBuildFresh(outDir)) {
      const old = `${outDir}.old-${process.pid}-${Date.now()}`;
      if (existsSync(outDir)) renameSync(outDir, old);
      renameSync(tmp, outDir);
      rmSync(old, { recursive: true, force: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  say(`portal front end built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return 'built';
}
