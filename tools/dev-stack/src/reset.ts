/** `npm run reset`: wipes the local platform's data directory and credentials file. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { CREDENTIALS_PATH, DATA_DIR, PLATFORM_INFO_PATH } from './platform';

function runningPid(): number | undefined {
  if (!existsSync(PLATFORM_INFO_PATH)) return undefined;
  const pid = Number((JSON.parse(readFileSync(PLATFORM_INFO_PATH, 'utf8')) as { pid?: number }).pid);
  if (!pid || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Removes the data directory and the credentials file; refuses while a platform is running. */
export function resetLocalData(dataDir = DATA_DIR): void {
  const pid = runningPid();
  if (pid) throw new Error(`the local platform is running (process ${pid}): stop it first`);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(CREDENTIALS_PATH, { force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    resetLocalData();
    console.log(`removed ${DATA_DIR} and ${CREDENTIALS_PATH}: the next \`npm start\` seeds a fresh platform`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
