import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { createProjectGraphAsync } from '@nx/devkit';

const root = resolve(import.meta.dirname, '../../..');
let eslint: ESLint;

beforeAll(async () => {
  process.env.NX_DAEMON = 'false';
  await createProjectGraphAsync({ exitOnError: false });
  eslint = new ESLint({ cwd: root });
}, 120_000);

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, filePath) });
  return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries' || m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('module boundaries', () => {
  it('fails when an app imports another app, by package name or by path', async () => {
    expect(await boundaryErrors('apps/tracker/src/bad.ts', "import { createApp } from '@cw/app-publisher-api';\nexport const x = createApp;\n")).not.toEqual([]);
    expect(await boundaryErrors('apps/tracker/src/bad.ts', "import { createApp } from '../../publisher-api/src/app';\nexport const x = createApp;\n")).not.toEqual([]);
  });

  it('fails when a lib imports an app', async () => {
    expect(await boundaryErrors('libs/auth/src/bad.ts', "import { createApp } from '@cw/app-tracker';\nexport const x = createApp;\n")).not.toEqual([]);
  });

  it('fails when app code imports the testing lib outside tests', async () => {
    expect(await boundaryErrors('apps/tracker/src/bad.ts', "import { redisUrl } from '@cw/testing';\nexport const x = redisUrl;\n")).not.toEqual([]);
  });

  it('passes an app that imports libs', async () => {
    expect(await boundaryErrors('apps/tracker/src/ok.ts', "import { ApiError } from '@cw/errors';\nexport const x = ApiError;\n")).toEqual([]);
  });
});
