/**
 * The local platform's files, and who may write them. Each run of the platform has a home: its
 * credentials file and its platform info file (where local tools find its database), beside the
 * data they belong to:
 *
 * | run                              | data                      | credentials, platform info        |
 * |----------------------------------|---------------------------|-----------------------------------|
 * | `npm start`                      | `.local/data` or MONGODB_URI | `.local/credentials.json`, `.local/platform.json` |
 * | `npm start -- --data-dir DIR`    | DIR                       | `DIR/credentials.json`, `DIR/platform.json` |
 * | `npm start -- --in-memory`       | none                      | `.local/in-memory/credentials.json`, `.local/in-memory/platform.json` |
 *
 * A credentials file records the store its keys belong to (`store`). No run overwrites a
 * credentials file of another store that may still hold data: it writes its own beside it
 * (`credentials-<store hash>.json`) and says so. So `.local/credentials.json` only ever holds keys
 * that work against the durable platform's data.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export interface LocalRunFiles {
  /** The embedded engine's data directory; null: in memory (or MONGODB_URI). */
  dataDir: string | null;
  credentialsPath: string;
  infoPath: string;
}

/** The files of a run of the local platform (see the table above). */
export function localRunFiles(root: string, opts: { inMemory?: boolean; dataDir?: string }): LocalRunFiles {
  const local = resolve(root, '.local');
  if (opts.inMemory) return { dataDir: null, credentialsPath: join(local, 'in-memory/credentials.json'), infoPath: join(local, 'in-memory/platform.json') };
  const dataDir = resolve(opts.dataDir ?? join(local, 'data'));
  if (dataDir === join(local, 'data')) return { dataDir, credentialsPath: join(local, 'credentials.json'), infoPath: join(local, 'platform.json') };
  return { dataDir, credentialsPath: join(dataDir, 'credentials.json'), infoPath: join(dataDir, 'platform.json') };
}

/** What a credentials file's keys work against: an embedded data directory, memory, or a MongoDB (without its password). */
export function storeOf(opts: { mongodbUri?: string; dataDir?: string | null }): string {
  if (opts.mongodbUri) return opts.mongodbUri.replace(/\/\/[^@/]*@/, '//');
  return opts.dataDir ? `embedded:${resolve(opts.dataDir)}` : 'embedded:in-memory';
}

/** Whether a store may still hold the data a credentials file's keys belong to. */
function storeMayHoldData(store: string): boolean {
  if (store === 'embedded:in-memory') return false;
  if (!store.startsWith('embedded:')) return true;
  const dir = store.slice('embedded:'.length);
  return existsSync(dir) && readdirSync(dir).some((f) => /^(journal|snapshot)-/.test(f));
}

/**
 * The store a credentials file belongs to (undefined: no file). Files written before stores were
 * recorded were the durable platform's: `.local/data` beside `.local/credentials.json`.
 */
export function credentialsStore(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  let store: string | undefined;
  try {
    store = (JSON.parse(readFileSync(path, 'utf8')) as { store?: string }).store;
  } catch {
    store = undefined;
  }
  return store ?? `embedded:${join(dirname(path), 'data')}`;
}

/**
 * Writes a credentials file for `store` at `path`, unless that file holds the keys of another
 * store that may still hold data: then beside it, under a name of this store's. Returns the path
 * written and, when it is not `path`, why.
 */
export function writeCredentials(path: string, store: string, credentials: object): { path: string; moved?: string } {
  const owner = credentialsStore(path);
  let target = path;
  let moved: string | undefined;
  if (owner !== undefined && owner !== store && storeMayHoldData(owner)) {
    target = join(dirname(path), `${basename(path, '.json')}-${createHash('sha256').update(store).digest('hex').slice(0, 8)}.json`);
    moved = `${path} holds the keys of ${owner}; this database's keys are in ${target}`;
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify({ ...credentials, store }, null, 2)}\n`, { mode: 0o600 });
  return { path: target, moved };
}

/** The pid of a live process named by a platform info file (undefined: none, or it is gone). */
export function livePlatformPid(infoPath: string): number | undefined {
  if (!existsSync(infoPath)) return undefined;
  let pid: number;
  try {
    pid = Number((JSON.parse(readFileSync(infoPath, 'utf8')) as { pid?: number }).pid);
  } catch {
    return undefined;
  }
  return pid && processAlive(pid) ? pid : undefined;
}

/** The live process holding an embedded engine's data directory (its LOCK file), if any. */
export function dataDirOwner(dataDir: string): number | undefined {
  const lock = join(dataDir, 'LOCK');
  if (!existsSync(lock)) return undefined;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  return pid && processAlive(pid) ? pid : undefined;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
