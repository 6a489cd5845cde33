/**
 * The embedded engine in its own process, as MongoDB would be: its heap and GC are not the
 * benchmark's or the platform's. Answers the URI of database `db` on it; the process ends with the
 * benchmark's (or at `stop()`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { MALLOC_ENV } from './malloc-env';

export async function startEngineProcess(db: string): Promise<{ uri: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', 'tools/embedded-mongo/src/cli.ts', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...MALLOC_ENV, ...process.env },
  });
  child.unref();
  process.on('exit', () => child.kill());
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    uri: `${line}/${db}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** CPU time (user + system, µs) process `pid` has used so far, from /proc (Linux). */
export function processCpuMicros(pid: number): number {
  return statCpuMicros(`/proc/${pid}/stat`);
}

/** CPU time (µs) this process's main thread has used so far (its other threads not counted). */
export function mainThreadCpuMicros(): number {
  return statCpuMicros(`/proc/self/task/${process.pid}/stat`);
}

function statCpuMicros(path: string): number {
  // Fields 14 and 15 of a stat file, in clock ticks (100 per second on Linux); the command
  // name (field 2) may hold spaces, so count from the closing parenthesis.
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
