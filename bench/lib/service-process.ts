/**
 * A service started from its main in a process of its own, as it is deployed, on a free port;
 * answers once its `/readyz` does. The process ends with the benchmark's (or at `stop()`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { MALLOC_ENV } from './malloc-env';

export async function startServiceProcess(
  name: string,
  opts: {
    env: NodeJS.ProcessEnv;
    nodeArgs?: string[];
    /** Modules loaded after tsx, before the main (the telemetry hook, as the images start a service). */
    imports?: string[];
    /** The service's stdout (its stderr is always shown). */
    stdout?: 'inherit' | 'ignore';
  },
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  probe.close();
  const imports = (opts.imports ?? []).flatMap((m) => ['--import', m]);
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', ...imports, `apps/${name}/src/main.ts`], {
    env: { ...MALLOC_ENV, ...opts.env, PORT: String(port) },
    stdio: ['ignore', opts.stdout ?? 'inherit', 'inherit'],
  });
  process.on('exit', () => child.kill());
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      if (i > 150) throw new Error(`${name} did not start`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
