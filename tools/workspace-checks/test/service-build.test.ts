/**
 * Each service builds to its own bundle that runs with plain `node` (no tsx, no repository
 * sources), also under the Node the images use (docker/Dockerfile.*), fetched from the npm
 * registry (`node-linux-<arch>`, as the README's MCP Inspector line fetches its Node). One file,
 * so the builds never run at the same time.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    // Built by the file's beforeAll below (`nx run-many -t build`, every app, the cache skipped), which
    // runs before this test too: each app is built once per run, not the tracker twice.
    const out = resolve(root, 'dist/apps/tracker');
    const bundle = readFileSync(resolve(out, 'main.js'), 'utf8');
    // The app and its libs are inside; no other app is.
    expect(bundle).toContain('// apps/tracker/src/');
    expect(bundle).toContain('// libs/platform/http/src/');
    expect(bundle).not.toMatch(/\/\/ apps\/(?!tracker\/)/);
    expect(bundle).not.toMatch(/from "@cw\//);
    const pkg = JSON.parse(readFileSync(resolve(out, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toHaveProperty('koa');
    expect(pkg.dependencies).toHaveProperty('mongoose');
    // Data the tracker reads from files at run time (not bundled): the image's `npm ci` installs them from this list.
    for (const data of ['@ip-location-db/asn', '@ip-location-db/geo-whois-asn-country-mmdb']) expect(pkg.dependencies).toHaveProperty(data);
    expect(Object.keys(pkg.dependencies).filter((d) => d.startsWith('@cw/'))).toEqual([]);
    for (const devOnly of ['vitest', 'nx', 'tsx', 'typescript', 'supertest']) expect(pkg.dependencies).not.toHaveProperty(devOnly);
    expect(existsSync(resolve(out, 'package-lock.json'))).toBe(true);

    engine = await startEmbeddedMongo();
    const port = await freePort();
    const env = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      MONGODB_URI: `${engine.uri}/build_test`,
      PORT: String(port),
      SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
      LOG_LEVEL: 'silent',
    };
    // Services verify indexes, they do not build them: on an unmigrated database the bundle refuses to start, naming what is missing.
    // (asynchronously: the engine answering it runs in this process)
    const refused = spawn(process.execPath, ['main.js'], { cwd: out, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    refused.stderr!.on('data', (d) => (stderr += d));
    const [status] = (await once(refused, 'exit')) as [number];
    expect(status).toBe(1);
    expect(stderr).toMatch(/^tracker: the database lacks \d+ index\(es\) this service needs; run `npm run admin -- db:migrate` first: .*links \{/);
    expect((await runCli(['db:migrate', '--json'], { MONGODB_URI: env.MONGODB_URI }, root)).code).toBe(0);
    // Its log at info: the AS table of the datacenter flag is found and loaded by the bundle (docs/decisions/0067-datacenter-clicks.md).
    child = spawn(process.execPath, ['main.js'], { cwd: out, env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'ignore'] });
    let log = '';
    child.stdout!.on('data', (d) => (log += d));
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
    for (let i = 0; i < 600 && !log.includes('AS table loaded'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(log).toMatch(/"rows":\{"v4":\d{6},"v6":\d{5,6}\}.*AS table loaded/);
  }, 180_000);

  it('started as the images start it (`--import ./register.js`), the bundle traces its MongoDB calls inside the request that made them', async () => {
    const out = resolve(root, 'dist/apps/tracker');
    expect(readFileSync(resolve(root, 'docker/Dockerfile.tracker'), 'utf8')).toContain(
      'CMD ["node", "--enable-source-maps", "--import", "./register.js", "main.js"]',
    );
    const spans: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }> = [];
    const collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += String(c)));
      req.on('end', () => {
        const doc = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans: Array<{ spans: typeof spans }> }> };
        for (const rs of doc.resourceSpans ?? []) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const port = await freePort();
    const traced = spawn(process.execPath, ['--enable-source-maps', '--import', './register.js', 'main.js'], {
      cwd: out,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        MONGODB_URI: `${engine!.uri}/build_test`,
        PORT: String(port),
        SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
        LOG_LEVEL: 'silent',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      stdio: 'ignore',
    });
    try {
      let ready: Response | undefined;
      for (let i = 0; i < 100 && !ready; i++) {
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ready?.status).toBe(200);
      let found: { server: (typeof spans)[number]; db: (typeof spans)[number] } | undefined;
      for (let i = 0; i < 100 && !found; i++) {
        // /readyz pings MongoDB: the driver's span (client) in the request's trace (server).
        const db = spans.find((s) => s.kind === 3 && s.name.startsWith('ping'));
        const server = db && spans.find((s) => s.kind === 2 && s.traceId === db.traceId);
        if (server && db) found = { server, db };
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(found, `spans seen: ${spans.map((s) => s.name).join(', ')}`).toBeDefined();
    } finally {
      traced.kill('SIGTERM');
      collector.close();
    }
  }, 60_000);
});

const APPS = readdirSync(resolve(root, 'apps')).sort();
let imagesEngine: EmbeddedMongo;
let node: string;
const children: ChildProcess[] = [];

/** The images' Node major, read from the Dockerfiles (they must all agree). */
function imageNodeMajor(): string {
  const majors = new Set(APPS.map((app) => /FROM node:(\d+)-/.exec(readFileSync(resolve(root, `docker/Dockerfile.${app}`), 'utf8'))?.[1]));
  expect([...majors]).toHaveLength(1);
  return [...majors][0]!;
}

// Runs before every test of the file (the tracker's build test above too): each app built once.
beforeAll(async () => {
  const major = imageNodeMajor();
  const dir = resolve(root, `node_modules/.cache/image-node-${major}`);
  node = resolve(dir, `node_modules/node-linux-${process.arch}/bin/node`);
  if (!existsSync(node)) {
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, `node-linux-${process.arch}@${major}`], {
      stdio: 'ignore',
      timeout: 240_000,
    });
  }
  execFileSync(
    process.execPath,
    [resolve(root, 'node_modules/nx/dist/bin/nx.js'), 'run-many', '-t', 'build', '--projects', APPS.join(','), '--skip-nx-cache'],
    {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'ignore',
      timeout: 300_000,
    },
  );
  imagesEngine = await startEmbeddedMongo();
  expect((await runCli(['db:migrate', '--json'], { MONGODB_URI: `${imagesEngine.uri}/images` }, root)).code).toBe(0);
}, 600_000);
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await imagesEngine?.stop();
});

describe('the images’ Node', () => {
  it('is a supported LTS that package.json engines admit', () => {
    const major = Number(imageNodeMajor());
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(22);
    const engines = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toContain(`^${major}.`);
  });

  it.each(APPS)(
    'runs the %s bundle: /healthz and /readyz answer 200',
    async (app) => {
      expect(execFileSync(node, ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^v${imageNodeMajor()}\\.`));
      const port = await freePort();
      const child = spawn(node, ['main.js'], {
        cwd: resolve(root, `dist/apps/${app}`),
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          MONGODB_URI: `${imagesEngine.uri}/images`,
          PORT: String(port),
          SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
          LOG_LEVEL: 'silent',
        },
        stdio: 'ignore',
      });
      children.push(child);
      let live: Response | undefined;
      for (let i = 0; i < 150 && !live; i++) {
        live = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (!live) await new Promise((r) => setTimeout(r, 100));
      }
      expect(live?.status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ok', checks: { mongodb: 'ok' } });
      if (app === 'portal') {
        // The image serves the front end built beside the bundle: the page, and the script it loads.
        const page = await fetch(`http://127.0.0.1:${port}/signin`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
        const script = /src="(\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
        expect(script).toBeDefined();
        expect((await fetch(`http://127.0.0.1:${port}${script}`)).status).toBe(200);
      }
      child.kill('SIGTERM');
    },
    60_000,
  );
});
