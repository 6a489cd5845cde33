/**
 * The operator's view of the events feed: `events:tail` pages a publisher's events with the API's
 * cursors, `--follow` (a real CLI process) prints each new change as a JSON line until interrupted,
 * `events:prune` makes older cursors answer "no longer kept", `events:backfill` is safe to repeat.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeStatus } from '@cw/conversions';
import { listEvents } from '@cw/events-feed';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { runCli } from '../src/cli';

let deps: TestDeps;
const dir = mkdtempSync(join(tmpdir(), 'events-cli-'));
const admin = async (...args: string[]) => {
  const r = await runCli([...args, '--json'], { MONGODB_URI: deps.tdb.uri }, dir);
  return { code: r.code, body: JSON.parse(r.out) as Record<string, unknown> };
};

beforeAll(async () => {
  deps = await createTestDeps({ seedProducts: 20 });
});
afterAll(async () => deps?.close());

describe('events commands', () => {
  it("events:tail pages a publisher's events with the feed's cursors; unknown accounts and foreign cursors are usage errors", async () => {
    const account = deps.demo!.publishers[0].account_id;
    const first = await admin('events:tail', '--publisher', account, '--limit', '4');
    expect(first.code).toBe(0);
    const api = await listEvents(deps, account, { limit: 6 });
    expect((first.body.events as Array<{ id: string }>).map((e) => e.id)).toEqual(api.data.slice(0, 4).map((e) => e.id));
    const next = await admin('events:tail', '--publisher', account, '--limit', '2', '--cursor', first.body.next_cursor as string);
    expect((next.body.events as Array<{ id: string }>).map((e) => e.id)).toEqual(api.data.slice(4, 6).map((e) => e.id));
    expect((await admin('events:tail', '--publisher', 'pub_nobody')).body.error).toContain('does not exist');
    const other = deps.demo!.publishers[1].account_id;
    expect((await admin('events:tail', '--publisher', other, '--cursor', first.body.next_cursor as string)).body.error).toContain("another account's feed");
  });

  it('events:tail --follow prints each new change as it happens, one JSON line, until interrupted', async () => {
    const account = deps.demo!.publishers[0].account_id;
    const end = (await listEvents(deps, account, { limit: 500 })).next_cursor;
    const root = resolve(import.meta.dirname, '../../..');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tools/admin-cli/src/main.ts', 'events:tail', '--publisher', account, '--cursor', end, '--follow'],
      {
        cwd: root,
        env: { ...process.env, MONGODB_URI: deps.tdb.uri },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines = createInterface({ input: child.stdout! });
    const seen: Array<{ type: string; conversion: { id: string }; cursor: string }> = [];
    lines.on('line', (l) => seen.push(JSON.parse(l)));
    await new Promise((r) => setTimeout(r, 3000)); // the CLI is polling
    const pending = (await deps.models.Conversion.findOne({ publisher_id: account, source: 'v1', status: 'pending' }, { _id: 1 }).lean())!;
    await changeStatus(deps, String(pending._id), 'declined');
    for (const t = Date.now(); !seen.length && Date.now() - t < 10_000;) await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((e) => [e.type, e.conversion.id])).toEqual([['sale.declined', String(pending._id)]]);
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('events:prune makes cursors before what is left answer "no longer kept"; events:backfill is safe to repeat', async () => {
    const account = deps.demo!.publishers[1].account_id;
    const cursor = (await listEvents(deps, account, { limit: 1 })).next_cursor;
    const again = await admin('events:backfill');
    expect(again.code).toBe(0);
    expect(again.body.appended).toBe(0);
    const pruned = await admin('events:prune', '--older-than-days', '0');
    expect(pruned.body.removed as number).toBeGreaterThan(0);
    expect((await admin('events:tail', '--publisher', account, '--cursor', cursor)).body.error).toContain('no longer kept');
  });
});
