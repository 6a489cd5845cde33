/**
 * Local data cannot be clobbered: credentials files have one owner, reset refuses while a
 * platform uses the data, a port in use is found before anything is seeded, and every entry
 * point answers --help and bad options with one line and exit 2. Through the real entry points.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localRunFiles, writeCredentials } from '@cw-tools/admin-cli';
import { REPO_ROOT } from '../src/platform';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

function run(script: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('credentials files', () => {
  it("never overwrite another database's keys while that database may still hold data; write beside them and say so", () => {
    const local = mkdtempSync(join(tmpdir(), 'local-'));
    const path = join(local, 'credentials.json');
    const durable = join(local, 'data');
    mkdirSync(durable);
    writeFileSync(join(durable, 'journal-000001.log'), 'x');
    expect(writeCredentials(path, `embedded:${durable}`, { keys: 'durable' })).toEqual({ path });
    // Another database (MONGODB_URI, another data directory): beside, not over.
    const other = writeCredentials(path, 'mongodb://127.0.0.1:27017/other', { keys: 'other' });
    expect(other.path).toMatch(/credentials-[0-9a-f]{8}\.json$/);
    expect(other.moved).toContain(`holds the keys of embedded:${durable}`);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ keys: 'durable', store: `embedded:${durable}` });
    // The same database seeded again (after a reset) takes its file back.
    expect(writeCredentials(path, `embedded:${durable}`, { keys: 'durable 2' }).path).toBe(path);
    // Keys of a database that no longer holds data are dead: their file may be reused.
    const gone = join(local, 'gone');
    writeFileSync(path, JSON.stringify({ keys: 'old', store: `embedded:${gone}` }));
    expect(writeCredentials(path, 'mongodb://127.0.0.1:27017/other', { keys: 'other' }).path).toBe(path);
  });

  it('put each run beside its own data: the default in .local, --data-dir in DIR, --in-memory in .local/in-memory', () => {
    expect(localRunFiles('/r', {})).toEqual({ dataDir: '/r/.local/data', credentialsPath: '/r/.local/credentials.json', infoPath: '/r/.local/platform.json' });
    expect(localRunFiles('/r', { dataDir: '/r/.local/data' }).credentialsPath).toBe('/r/.local/credentials.json');
    expect(localRunFiles('/r', { dataDir: '/x/d' })).toEqual({ dataDir: '/x/d', credentialsPath: '/x/d/credentials.json', infoPath: '/x/d/platform.json' });
    expect(localRunFiles('/r', { inMemory: true })).toEqual({
      dataDir: null,
      credentialsPath: '/r/.local/in-memory/credentials.json',
      infoPath: '/r/.local/in-memory/platform.json',
    });
  });
});

describe('npm start, reset and seed', () => {
  it('finds a port in use before it starts the engine or seeds anything: one line, exit 2', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => taken.close());
    const dataDir = join(mkdtempSync(join(tmpdir(), 'start-')), 'data');
    const r = run('tools/dev-stack/src/main.ts', ['--data-dir', dataDir], { PORT: String((taken.address() as net.AddressInfo).port) });
    expect(r.code).toBe(2);
    expect(r.err.trim()).toMatch(
      /^error: port \d+ on 127\.0\.0\.1 is in use \(another platform\?\): stop it, or start on another port with PORT=8081 npm start$/,
    );
    expect(existsSync(join(dataDir, 'credentials.json'))).toBe(false);
    expect(r.out).not.toContain('seeding');
  });

  it('refuses to reset a data directory a running process holds, and asks for --yes without a terminal', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'reset-')), 'data');
    mkdirSync(dataDir);
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    cleanups.push(() => holder.kill());
    writeFileSync(join(dataDir, 'LOCK'), `${holder.pid}\n`);
    writeFileSync(join(dataDir, 'journal-000001.log'), 'x');
    const refused = run('tools/dev-stack/src/reset.ts', ['--data-dir', dataDir, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.err.trim()).toBe(`error: the local platform is running (process ${holder.pid}) on ${dataDir}: stop it first`);
    expect(existsSync(join(dataDir, 'journal-000001.log'))).toBe(true);
    holder.kill();
    await new Promise((r) => holder.once('exit', r));
    const unasked = run('tools/dev-stack/src/reset.ts', ['--data-dir', dataDir]);
    expect(unasked).toMatchObject({ code: 2, err: 'error: refusing to wipe without a terminal to ask: pass --yes\n' });
    expect(existsSync(dataDir)).toBe(true);
    expect(run('tools/dev-stack/src/reset.ts', ['--data-dir', dataDir, '--yes']).code).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    ['npm start', 'tools/dev-stack/src/main.ts'],
    ['npm run reset', 'tools/dev-stack/src/reset.ts'],
    ['npm run seed', 'tools/dev-stack/src/seed-cli.ts'],
    ['npm run mongo:embedded', 'tools/embedded-mongo/src/cli.ts'],
    ['npm run bench:engine', 'bench/engine.bench.ts'],
  ])('%s answers --help with its usage, and an unknown option with one line and exit 2', (command, script) => {
    const help = run(script, ['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(new RegExp(`^usage: ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const bad = run(script, ['--no-such-option']);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/^error: Unknown option '--no-such-option'/);
  });

  it('the operator CLI answers an unknown command in one line with exit 2', () => {
    const r = run('tools/admin-cli/src/main.ts', ['no:such-command']);
    expect(r).toMatchObject({ code: 2, err: 'error: unknown command "no:such-command" (npm run admin -- help lists the commands)\n' });
  });
});
