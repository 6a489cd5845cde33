/** The TypeScript sources under a folder (declarations, dependencies and build output left out), for the checks that read imports. */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

const SKIP = new Set(['node_modules', 'dist', '.local', 'coverage', 'web-dist']);

export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = resolve(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
