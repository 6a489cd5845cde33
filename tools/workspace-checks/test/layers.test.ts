/**
 * Imports point down the layers: `libs/kernel` < `libs/platform` < `libs/domains` < `libs/root`
 * (the composition root, decision record 0068). No kernel or platform file, tests included,
 * imports a domain lib or the root: by package name (`@cw/<lib>`, a deep path too), by a relative
 * path that leaves its layer, or through `import type`, `export ... from` or `import()`. The lint's
 * scope tags hold the same for the code; this check also covers tests and needs no tag to be right.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './support/source-files';

const root = resolve(import.meta.dirname, '../../..');
/** The layers no file may import from, and those whose files are checked. */
const UPPER = ['libs/domains', 'libs/root'];
const LOWER = ['libs/kernel', 'libs/platform'];

/** The package names of the libs of the upper layers, read from their package.json files. */
function upperPackages(): Set<string> {
  const names = new Set<string>();
  for (const layer of UPPER) {
    for (const dir of readdirSync(resolve(root, layer), { withFileTypes: true })) {
      const pkg = resolve(root, layer, dir.name, 'package.json');
      if (dir.isDirectory() && existsSync(pkg)) names.add((JSON.parse(readFileSync(pkg, 'utf8')) as { name: string }).name);
    }
  }
  return names;
}

/** The specifiers of `code` (a file at `file`) that reach an upper layer, by package name or relative path. */
function upwardImports(file: string, code: string, packages: Set<string>): string[] {
  return ts
    .preProcessFile(code, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((specifier) => {
      if (specifier.startsWith('.')) {
        const target = relative(root, resolve(dirname(file), specifier));
        return UPPER.some((layer) => target === layer || target.startsWith(layer + sep));
      }
      const name = specifier.split('/').slice(0, 2).join('/');
      return packages.has(name);
    });
}

describe('layers', () => {
  const packages = upperPackages();

  it('knows the upper layers: every domain lib and the composition root', () => {
    expect(packages.has('@cw/runtime')).toBe(true);
    expect(packages.has('@cw/conversions')).toBe(true);
    expect(packages.size).toBeGreaterThan(15);
  });

  it('finds an upward import written any way, and lets a lower one through', () => {
    const file = resolve(root, 'libs/platform/db/src/bad.ts');
    const code = [
      "import { listPrograms } from '@cw/programs';",
      "import type { PlatformData } from '@cw/runtime';",
      "export { linksDomain } from '@cw/links/src/data/links.data';",
      "const feed = await import('@cw/events-feed');",
      "import { x } from '../../../domains/stats/src/counting';",
      "import { ApiError } from '@cw/errors';",
      "import { guard } from './sharding';",
      "import mongoose from 'mongoose';",
    ].join('\n');
    expect(upwardImports(file, code, packages)).toEqual([
      '@cw/programs',
      '@cw/runtime',
      '@cw/links/src/data/links.data',
      '@cw/events-feed',
      '../../../domains/stats/src/counting',
    ]);
  });

  it('has no import from libs/kernel or libs/platform up to a domain lib or the composition root', () => {
    const found: string[] = [];
    const files = LOWER.flatMap((layer) => sourceFiles(resolve(root, layer)));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      for (const specifier of upwardImports(file, readFileSync(file, 'utf8'), packages)) found.push(`${relative(root, file)} -> ${specifier}`);
    }
    expect(found).toEqual([]);
  });
});
