import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { createProjectGraphAsync } from '@nx/devkit';

const root = resolve(import.meta.dirname, '../../..');
let eslint: ESLint;
/** The configuration as is, type-aware rules included (they need files of the TypeScript program). */
let typed: ESLint;

beforeAll(async () => {
  process.env.NX_DAEMON = 'false';
  await createProjectGraphAsync({ exitOnError: false });
  typed = new ESLint({ cwd: root });
  // The boundary cases lint files that do not exist, which the type-aware parser cannot place:
  // the same configuration without the rules that need types.
  eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
    },
  });
}, 120_000);

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, filePath) });
  return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries' || m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('module boundaries', () => {
  it('fails when an app imports another app, by package name or by path', async () => {
    expect(await boundaryErrors('apps/tracker/src/bad.ts', "import { createApp } from '@cw/app-publisher-api';\nexport const x = createApp;\n")).not.toEqual(
      [],
    );
    expect(
      await boundaryErrors('apps/tracker/src/bad.ts', "import { createApp } from '../../publisher-api/src/app';\nexport const x = createApp;\n"),
    ).not.toEqual([]);
  });

  it('fails when a lib imports an app', async () => {
    expect(await boundaryErrors('libs/platform/auth/src/bad.ts', "import { createApp } from '@cw/app-tracker';\nexport const x = createApp;\n")).not.toEqual(
      [],
    );
  });

  it('fails when app code imports the testing lib outside tests', async () => {
    expect(await boundaryErrors('apps/tracker/src/bad.ts', "import { redisUrl } from '@cw-tools/testing';\nexport const x = redisUrl;\n")).not.toEqual([]);
  });

  it('passes an app that imports libs', async () => {
    expect(await boundaryErrors('apps/tracker/src/ok.ts', "import { ApiError } from '@cw/errors';\nexport const x = ApiError;\n")).toEqual([]);
  });

  it('fails when the tracker pulls in a publisher-only domain lib, or a shared lib a domain lib', async () => {
    expect(
      await boundaryErrors('apps/tracker/src/bad.ts', "import { searchProductsPage } from '@cw/catalog';\nexport const x = searchProductsPage;\n"),
    ).not.toEqual([]);
    expect(await boundaryErrors('apps/tracker/src/bad.ts', "import { paymentStatus } from '@cw/account';\nexport const x = paymentStatus;\n")).not.toEqual([]);
    expect(await boundaryErrors('libs/platform/http/src/bad.ts', "import { listPrograms } from '@cw/programs';\nexport const x = listPrograms;\n")).not.toEqual(
      [],
    );
    expect(await boundaryErrors('apps/tracker/src/ok.ts', "import { clickRecord } from '@cw/links';\nexport const x = clickRecord;\n")).toEqual([]);
  });

  it("fails when a lib reaches another domain's models instead of that domain's exported functions", async () => {
    // The links domain's data module, by path or by a deep package path: both refused.
    expect(
      await boundaryErrors(
        'libs/domains/monetize/src/bad.ts',
        "import { linksModels } from '../../links/src/data/links.data';\nexport const x = linksModels;\n",
      ),
    ).not.toEqual([]);
    expect(
      await boundaryErrors('libs/domains/monetize/src/bad.ts', "import { linksModels } from '@cw/links/src/data/links.data';\nexport const x = linksModels;\n"),
    ).not.toEqual([]);
    // The composition root (every model on one connection) is for apps and tools, never a domain lib.
    expect(
      await boundaryErrors('libs/domains/monetize/src/bad.ts', "import { openPlatformData } from '@cw/runtime';\nexport const x = openPlatformData;\n"),
    ).not.toEqual([]);
    // A domain the lib does not depend on is refused even through its package (programs knows nothing of conversions).
    expect(
      await boundaryErrors('libs/domains/programs/src/bad.ts', "import type { ConversionsData } from '@cw/conversions';\nexport type X = ConversionsData;\n"),
    ).not.toEqual([]);
    // Through the package, a domain the lib may use: its handle's type and methods.
    expect(await boundaryErrors('libs/domains/monetize/src/ok.ts', "import type { LinksData } from '@cw/links';\nexport type X = LinksData;\n")).toEqual([]);
  });

  it('keeps the conversions family one way: sales core, then events feed, then stats, then reports (decision record 0047)', async () => {
    // The sales core knows neither the read model nor the feed; the feed not the read model; the read model not the reports.
    expect(await boundaryErrors('libs/domains/conversions/src/bad.ts', "import { readFacts } from '@cw/stats';\nexport const x = readFacts;\n")).not.toEqual(
      [],
    );
    expect(
      await boundaryErrors('libs/domains/conversions/src/bad.ts', "import { listEvents } from '@cw/events-feed';\nexport const x = listEvents;\n"),
    ).not.toEqual([]);
    expect(await boundaryErrors('libs/domains/events-feed/src/bad.ts', "import { readFacts } from '@cw/stats';\nexport const x = readFacts;\n")).not.toEqual(
      [],
    );
    expect(await boundaryErrors('libs/domains/stats/src/bad.ts', "import { listSales } from '@cw/reports';\nexport const x = listSales;\n")).not.toEqual([]);
    expect(await boundaryErrors('libs/domains/reports/src/ok.ts', "import { readFacts } from '@cw/stats';\nexport const x = readFacts;\n")).toEqual([]);
    // The conversion rows are opened inside the family only; other domains use ConversionsData's methods.
    expect(
      await boundaryErrors('libs/domains/monetize/src/bad.ts', "import { conversionsModels } from '@cw/conversions';\nexport const x = conversionsModels;\n"),
    ).not.toEqual([]);
    expect(
      await boundaryErrors('libs/domains/stats/src/ok.ts', "import { conversionsModels } from '@cw/conversions';\nexport const x = conversionsModels;\n"),
    ).toEqual([]);
  });

  it('fails when lib code imports a tool (the embedded engine, the demo data)', async () => {
    expect(
      await boundaryErrors(
        'libs/platform/db/src/bad.ts',
        "import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';\nexport const x = startEmbeddedMongo;\n",
      ),
    ).not.toEqual([]);
  });

  it('fails a promise nobody handles, and an async callback whose promise nothing awaits (type-aware rules)', async () => {
    // An existing file of the type-checked program, linted with this text instead of its own.
    const code = 'export async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n  setTimeout(async () => f(), 1);\n}\n';
    const [result] = await typed.lintText(code, { filePath: resolve(root, 'libs/platform/health/src/health.ts') });
    const rules = result.messages.map((m) => m.ruleId);
    expect(rules).toContain('@typescript-eslint/no-floating-promises');
    expect(rules).toContain('@typescript-eslint/no-misused-promises');
  });
});
