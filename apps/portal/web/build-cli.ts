/**
 * Builds the portal's front end: `npx tsx apps/portal/web/build-cli.ts [--out <dir>] [--quiet] [--if-stale]`.
 * --if-stale skips the build when <out>/.stamp matches the sources.
 */
import { buildPortalWeb, DEFAULT_WEB_OUT_DIR, isWebBuildFresh } from './build';

function parse(argv: string[]): { outDir?: string; quiet: boolean; ifStale: boolean } {
  const out: { outDir?: string; quiet: boolean; ifStale: boolean } = { quiet: false, ifStale: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quiet') out.quiet = true;
    else if (a === '--if-stale') out.ifStale = true;
    else if (a === '--out') out.outDir = argv[++i];
    else if (a?.startsWith('--out=')) out.outDir = a.slice('--out='.length);
    else throw new Error(`Unknown argument ${a}. Usage: build-cli.ts [--out <dir>] [--quiet] [--if-stale]`);
  }
  return out;
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const outDir = args.outDir ?? DEFAULT_WEB_OUT_DIR;
  if (args.ifStale && isWebBuildFresh(outDir)) {
    console.log(`Portal web build in ${outDir} is up to date.`);
    return;
  }
  const started = Date.now();
  const r = await buildPortalWeb({ outDir, quiet: args.quiet });
  console.log(`Portal web built into ${r.outDir} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
