/** Each service builds to its own bundle that runs with plain `node` (no tsx, no repository sources). */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@cw-tools/embedded-mongo';
import { runCli } from '@cw-tools/admin-cli';
import { freePort } from '@cw-tools/testing';

const root = resolve(import.meta.dirname, '../../..');
let engine: EmbeddedMongo | undefined;
let child: ChildProcess | undefined;

afterAll(async () => {
  child?.kill('SIGTERM');
  await engine?.stop();
});

describe('per-service build', () => {
  it('bundles the tracker with its libs into dist/apps/tracker with a package.json of only its external dependencies, and the bundle serves /healthz under node', async () => {
    execFileSync(process.execPath, [resolve(root, 'node_modules/nx/dist/bin/nx.js'), 'build', 'tracker', '--skip-nx-cache'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore', timeout: 120_000 });
    const out = resolve(root, 'dist/apps/tracker');
    const bundle = readFileSync(resolve(out, 'main.js'), 'utf8');
    // The app and its libs are inside; no other app is.
    expect(bundle).toContain('// apps/tracker/src/');
    expect(bundle).toContain('// libs/http/src/');
    expect(bundle).not.toMatch(/\/\/ apps\/(?!tracker\/)/);
    expect(bundle).not.toMatch(/from "@cw\//);
    const pkg = JSON.parse(readFileSync(resolve(out, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toHaveProperty('koa');
    expect(pkg.dependencies).toHaveProperty('mongoose');
    expect(Object.keys(pkg.dependencies).filter((d) => d.startsWith('@cw/'))).toEqual([]);
    for (const devOnly of ['vitest', 'nx', 'tsx', 'typescript', 'supertest']) expect(pkg.dependencies).not.toHaveProperty(devOnly);
    expect(existsSync(resolve(out, 'package-lock.json'))).toBe(true);

    engine = await startEmbeddedMongo();
    const port = await freePort();
    const env = { PATH: process.env.PATH, NODE_ENV: 'production', MONGODB_URI: `${engine.uri}/build_test`, PORT: String(port), SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'), LOG_LEVEL: 'silent' };
    // Services verify indexes, they do not build them: on an unmigrated database the bundle refuses to start, naming what is missing.
    // (asynchronously: the engine answering it runs in this process)
    const refused = spawn(process.execPath, ['main.js'], { cwd: out, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    refused.stderr!.on('data', (d) => (stderr += d));
    const [status] = (await once(refused, 'exit')) as [number];
    expect(status).toBe(1);
    expect(stderr).toMatch(/^tracker: the database lacks \d+ index\(es\) this service needs; run `npm run admin -- db:migrate` first: .*links \{/);
    expect((await runCli(['db:migrate'], { MONGODB_URI: env.MONGODB_URI }, root)).code).toBe(0);
    child = spawn(process.execPath, ['main.js'], { cwd: out, env, stdio: 'ignore' });
    let health: Response | undefined;
    for (let i = 0; i < 100 && !health; i++) {
      health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 100));
    }
    expect(health?.status).toBe(200);
    expect(await health!.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { mongodb: 'ok' } });
    const redirect = await fetch(`http://127.0.0.1:${port}/c/doesnotexist1`, { redirect: 'manual' });
    expect(redirect.status).toBe(404);
  }, 180_000);
});
