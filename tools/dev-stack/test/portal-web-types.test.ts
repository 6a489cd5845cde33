/**
 * The portal front end type-checks against the types generated from the portal's OpenAPI document
 * (apps/portal/web/src/api/generated/portal.ts, kept fresh by sdk-types.test.ts): a field a page
 * reads that the server's response schema does not declare fails here (the root `npm run typecheck`
 * does not cover the web's own tsconfig). The probe beside it reads undeclared fields on purpose,
 * each under `@ts-expect-error`: were the aliases loose (any, an index signature), those would fail.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/platform';

const run = promisify(execFile);
const WEB = join(REPO_ROOT, 'apps/portal/web');
const dir = mkdtempSync(join(tmpdir(), 'portal-web-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROBE = `import type { Overview } from '${WEB}/src/api/dashboard';
import type { Conversion } from '${WEB}/src/api/activity';
import type { Account, Session } from '${WEB}/src/api/types';
import type { Program } from '${WEB}/src/api/catalog';

export function probe(o: Overview, c: Conversion, a: Account, s: Session, p: Program): unknown[] {
  return [
    o.totals.clicks + c.sale_amount.length + a.name.length + s.csrf_token.length + p.id,
    // @ts-expect-error: the overview's schema declares no such member
    o.no_such_member,
    // @ts-expect-error: nor does the conversion's
    c.no_such_member,
    // @ts-expect-error: nor the account's
    a.no_such_member,
    // @ts-expect-error: nor the session's
    s.user.no_such_member,
    // @ts-expect-error: nor the program's
    p.no_such_member,
  ];
}
`;

describe('the portal front end', () => {
  it('type-checks against the types generated from the portal’s OpenAPI document, and reads no member its schemas lack', async () => {
    // A build writes the form validators the pages import (src/generated/, git-ignored).
    const tsx = join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');
    await run(process.execPath, [tsx, join(WEB, 'build-cli.ts'), '--out', join(dir, 'build'), '--quiet'], { cwd: REPO_ROOT });
    writeFileSync(join(dir, 'probe.ts'), PROBE);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(WEB, 'tsconfig.json'),
        compilerOptions: { typeRoots: [join(REPO_ROOT, 'node_modules/@types')] },
        include: [join(WEB, 'src/**/*.ts'), join(WEB, 'src/**/*.tsx'), join(WEB, '*.ts'), 'probe.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const out = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: REPO_ROOT, maxBuffer: 16 << 20 }).catch(
      (e: { stdout: string }) => e,
    );
    expect(out.stdout).toBe('');
  }, 600_000);
});
