/**
 * The map of the code stays true: every Nx project has an owner in CODEOWNERS (not only the
 * catch-all), and every file path the decision records (docs/decisions.md and docs/decisions/) name exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

/** Project roots: the directories under apps/, libs/<layer>/, tools/ and bench/ that hold a project.json. */
function projectRoots(): string[] {
  const roots = existsSync(resolve(root, 'bench/project.json')) ? ['bench'] : [];
  const layers = readdirSync(resolve(root, 'libs'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `libs/${d.name}`);
  for (const group of ['apps', ...layers, 'tools']) {
    for (const dir of readdirSync(resolve(root, group), { withFileTypes: true })) {
      if (dir.isDirectory() && existsSync(resolve(root, group, dir.name, 'project.json'))) roots.push(`${group}/${dir.name}`);
    }
  }
  return roots;
}

describe('code ownership and the decisions record', () => {
  it('gives every project an owner of its own in CODEOWNERS', () => {
    const owned = new Map(
      readFileSync(resolve(root, '.github/CODEOWNERS'), 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'))
        .map((line) => line.split(/\s+/) as [string, ...string[]])
        .map(([pattern, ...owners]) => [pattern, owners]),
    );
    const roots = projectRoots();
    expect(roots.length).toBeGreaterThan(30);
    const missing = roots.filter((r) => !(owned.get(`/${r}/`) ?? []).some((o) => o.startsWith('@')));
    expect(missing).toEqual([]);
  });

  it('names only files and directories that exist in docs/decisions.md and docs/decisions/', () => {
    const records = readdirSync(resolve(root, 'docs/decisions')).filter((f) => f.endsWith('.md'));
    const text = ['docs/decisions.md', ...records.map((f) => `docs/decisions/${f}`)].map((f) => readFileSync(resolve(root, f), 'utf8')).join('\n');
    // Repository paths in code spans; patterns (`apps/*/src`, `dist/apps/<app>/`) and MCP method
    // names (`tools/list`, `tools/call`) are not paths.
    const named = [...text.matchAll(/`((?:apps|libs|tools|bench|docs|docker|\.ci|\.github)\/[^`\s*<>{}]+)`/g)]
      .map((m) => m[1].replace(/[:#].*$/, ''))
      .filter((p) => !/^tools\/(list|call)$/.test(p));
    expect(named.length).toBeGreaterThan(20);
    const gone = [...new Set(named)].filter((p) => !existsSync(resolve(root, p)));
    expect(gone).toEqual([]);
  });

  it('names only existing test files in the slow tier that npm run test:fast leaves out', () => {
    const config = readFileSync(resolve(root, 'vitest.config.ts'), 'utf8');
    const list = /export const SLOW_TIER = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
    const slow = [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(slow.length).toBeGreaterThan(5);
    expect(slow.filter((f) => !f.endsWith('.test.ts') || !existsSync(resolve(root, f)))).toEqual([]);
  });
});
