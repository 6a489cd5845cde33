/**
 * `npm run reset [-- --yes] [--data-dir DIR]`: wipes a local platform's data directory and its
 * credentials file. Refused while any process uses the directory (the engine's LOCK) or the
 * durable platform runs; asks first unless --yes.
 */
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { dataDirOwner, livePlatformPid, localRunFiles, type LocalRunFiles } from '@cw-tools/admin-cli';
import { parseCommandLine } from '@cw-tools/cli-kit';
import { REPO_ROOT } from './platform';

/** A platform (or another process) uses the files to wipe. */
export class LocalDataInUseError extends Error {}

/** Refuses when another process holds the data directory (the engine's LOCK) or runs the platform of these files. */
function refuseWhileInUse(files: LocalRunFiles): void {
  const pid = (files.dataDir ? dataDirOwner(files.dataDir) : undefined) ?? livePlatformPid(files.infoPath);
  if (pid && pid !== process.pid)
    throw new LocalDataInUseError(`the local platform is running (process ${pid}) on ${files.dataDir ?? files.credentialsPath}: stop it first`);
}

/** Removes a run's data directory and credentials file; refuses while a process uses them. */
export function resetLocalData(files: LocalRunFiles = localRunFiles(REPO_ROOT, {})): void {
  refuseWhileInUse(files);
  if (files.dataDir) rmSync(files.dataDir, { recursive: true, force: true });
  rmSync(files.credentialsPath, { force: true });
}

const USAGE = `usage: npm run reset [-- --yes] [--data-dir DIR]

Wipes the local platform's data (.local/data, or DIR) and its credentials file, so the next
\`npm start\` seeds a fresh platform with new keys. Refused while a platform uses the data.

  --yes            do not ask (needed when not run from a terminal)
  --data-dir DIR   the data directory of \`npm start -- --data-dir DIR\`
  --help           this text`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = parseCommandLine(USAGE, { yes: { type: 'boolean' }, 'data-dir': { type: 'string' } });
  const files = localRunFiles(REPO_ROOT, { dataDir: args['data-dir'] as string | undefined });
  try {
    refuseWhileInUse(files);
    if (!args.yes) {
      if (!process.stdin.isTTY) throw new LocalDataInUseError('refusing to wipe without a terminal to ask: pass --yes');
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      const answer = await rl.question(`wipe ${files.dataDir} and ${files.credentialsPath}? every key in it stops working [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        console.log('nothing wiped');
        process.exit(0);
      }
    }
    resetLocalData(files);
    console.log(`removed ${files.dataDir} and ${files.credentialsPath}: the next \`npm start\` seeds a fresh platform`);
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exit(2);
  }
}
