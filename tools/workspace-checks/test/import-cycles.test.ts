/**
 * No import circle inside a project: every lib's and app's .ts/.tsx files, their relative imports
 * and re-exports (`import type` and `export type ... from` included, dynamic `import()` too), form
 * a graph without cycles. A circle means two modules that cannot be read, tested or moved apart;
 * what both sides need belongs in a module both import (a `types.ts` or similar).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './support/source-files';

const root = resolve(import.meta.dirname, '../../..');

/** Project roots: apps/<app> and libs/<layer>/<lib> holding a project.json. */
function projectRoots(): string[] {
  const roots: string[] = [];
  const groups = [
    'apps',
    ...readdirSync(resolve(root, 'libs'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `libs/${d.name}`),
  ];
  for (const group of groups) {
    for (const dir of readdirSync(resolve(root, group), { withFileTypes: true })) {
      if (dir.isDirectory() && existsSync(resolve(root, group, dir.name, 'project.json'))) roots.push(`${group}/${dir.name}`);
    }
  }
  return roots;
}

const isFile = (p: string): boolean => existsSync(p) && statSync(p).isFile();

/** The file a relative specifier names, as TypeScript resolves it (`./x`, `./x.js`, `./dir`). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${base}.ts`, `${base}.tsx`, resolve(base, 'index.ts'), resolve(base, 'index.tsx')];
  return candidates.find((c) => /\.tsx?$/.test(c) && isFile(c));
}

/** Import graph of one project: file -> the project's files it imports, types included. */
function importGraph(projectDir: string): Map<string, string[]> {
  const files = sourceFiles(projectDir);
  const inProject = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((s) => s.startsWith('./') || s.startsWith('../') || s === '.' || s === '..')
      .map((s) => resolveRelative(file, s))
      .filter((t): t is string => t !== undefined && inProject.has(t));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle's strongly connected component (Tarjan), each reported as one closed path through it. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) found.push(closedPath(graph, new Set(component)));
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}

/** A shortest path from the component's first file (by name) back to itself, within the component. */
function closedPath(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = previous.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('import cycles', () => {
  it('finds a cycle through a type-only import, and none in a chain', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
    // preProcessFile reads `import type` and `export type ... from` as imports.
    const info = ts.preProcessFile("import type { A } from './a';\nexport type { B } from './b';\nconst c = await import('./c');\n", true, true);
    expect(info.importedFiles.map((f) => f.fileName)).toEqual(['./a', './b', './c']);
  });

  it('has no import circle inside any lib or app, types included', () => {
    const projects = projectRoots();
    expect(projects.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const project of projects) {
      for (const cycle of cycles(importGraph(resolve(root, project)))) {
        found.push(cycle.map((f) => relative(root, f)).join(' -> '));
      }
    }
    expect(found).toEqual([]);
  });
});
