/**
 * The embedded engine of the one-process platform in a thread of its own, as MongoDB runs in a
 * process of its own: its heap (every document, ~1.4 GB at 100,000 products) and its garbage
 * collection are not the services', and its queries run beside theirs on another core. The
 * services reach it over a Unix socket, as a client on mongod's machine may reach mongod: the
 * same wire protocol, without the loopback TCP stack's cost on both sides; other clients (the
 * operator CLI, tests, mongosh) use its TCP address. What decides access or the catalog is
 * reported from the thread as it is written (the change reaches the platform before the write's
 * reply leaves the engine), so every writer's changes, the operator CLI's too, apply to the next
 * request.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AccessChange } from '@cw/db';

export interface EngineThread {
  /** Its TCP address. */
  uri: string;
  /** Its Unix socket's address (what the platform's own connections use). */
  socketUri: string;
  recovery?: { documents: number; changes: number; ms: number };
  /** True once the thread is stopped or gone (nothing it reports can be trusted after). */
  readonly stopped: boolean;
  onChange(listener: (change: AccessChange) => void): void;
  /** Writes the engine's whole state to one snapshot file (`snapshot` starts an engine from it). */
  saveSnapshot(path: string): Promise<void>;
  stop(): Promise<void>;
}

type FromThread =
  | { started: { uri: string; socketUri: string; recovery?: EngineThread['recovery'] } }
  | { failed: { name: string; message: string } }
  | { change: AccessChange }
  | { log: string }
  | { saved: string; error?: string }
  | { stopped: true };

/**
 * Named per start: never another platform's socket (the listener removes it when it closes). In
 * the temporary directory unless its path is too long for a socket address (108 bytes on Linux).
 */
function socketPath(): string {
  const name = `cw-engine-${process.pid}-${randomBytes(4).toString('hex')}.sock`;
  const inTmpdir = join(tmpdir(), name);
  return Buffer.byteLength(inTmpdir) <= 100 ? inTmpdir : join('/tmp', name);
}

/** `snapshot`: start in memory from that snapshot file (`saveSnapshot`); not with `dataDir`. */
export async function startEngineThread(opts: { dataDir?: string; snapshot?: string; log?: (message: string) => void }): Promise<EngineThread> {
  // tsx's loader does not reach a worker thread by itself (privatenumber/tsx#354): the thread
  // registers it, then imports its module.
  const entry = new URL('./engine-thread.worker.ts', import.meta.url).href;
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, {
    eval: true,
    workerData: { dataDir: opts.dataDir, snapshot: opts.snapshot, socketPath: socketPath() },
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 16_384 },
  });
  // The platform's listener keeps the process alive while it runs; the thread alone must not.
  worker.unref();
  const listeners: Array<(change: AccessChange) => void> = [];
  const saving = new Map<string, { resolve(): void; reject(e: Error): void }>();
  let stopped = false;
  let onStopped: (() => void) | undefined;
  const started = new Promise<{ uri: string; socketUri: string; recovery?: EngineThread['recovery'] }>((resolve, reject) => {
    worker.on('message', (m: FromThread) => {
      if ('change' in m) for (const l of listeners) l(m.change);
      else if ('log' in m) opts.log?.(m.log);
      else if ('saved' in m) {
        const waiter = saving.get(m.saved);
        saving.delete(m.saved);
        if (m.error) waiter?.reject(new Error(m.error));
        else waiter?.resolve();
      } else if ('started' in m) resolve(m.started);
      else if ('failed' in m) reject(Object.assign(new Error(m.failed.message), { name: m.failed.name }));
      else if ('stopped' in m) onStopped?.();
    });
    worker.on('error', (e) => {
      stopped = true;
      reject(e);
    });
    worker.on('exit', () => {
      stopped = true;
      reject(new Error('the engine thread ended before it started'));
      onStopped?.();
    });
  });
  const { uri, socketUri, recovery } = await started;
  return {
    uri,
    socketUri,
    recovery,
    get stopped() {
      return stopped;
    },
    onChange: (l) => void listeners.push(l),
    saveSnapshot: (path) =>
      new Promise<void>((resolve, reject) => {
        if (stopped) return reject(new Error('the engine thread is stopped'));
        saving.set(path, { resolve, reject });
        worker.postMessage({ saveSnapshot: path });
      }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Held open until the thread has closed its journal: nothing else may keep the process alive by then.
      worker.ref();
      await new Promise<void>((resolve) => {
        onStopped = resolve;
        worker.postMessage('stop');
      });
      await worker.terminate();
    },
  };
}
