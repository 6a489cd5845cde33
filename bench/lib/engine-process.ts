/**
 * The embedded engine in its own process, as MongoDB would be: its heap and GC are not the
 * benchmark's or the platform's. Answers the URI of database `db` on it; the process ends with the
 * benchmark's (or at `stop()`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export async function startEngineProcess(db: string): Promise<{ uri: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', 'tools/embedded-mongo/src/cli.ts', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.unref();
  process.on('exit', () => child.kill());
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    uri: `${line}/${db}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
