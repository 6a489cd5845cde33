import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_BUDGETS } from '@cw/config';

const root = resolve(import.meta.dirname, '../../..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');

describe('README', () => {
  it('starts with the two commands for a fresh machine', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1];
    expect(firstBlock).toContain('npm install && npm start');
    expect(firstBlock).toContain('npm test');
  });

  it('documents every variable the config loader reads', () => {
    const source = readFileSync(resolve(root, 'libs/kernel/config/src/load-config.ts'), 'utf8');
    const read = new Set([...source.matchAll(/(?:str|int|bool|url)\('([A-Z_]+)'/g)].map((m) => m[1]));
    for (const b of Object.values(RATE_LIMIT_BUDGETS)) read.add(b.env);
    for (const name of read) expect(readme, name).toContain(`\`${name}\``);
  });
});

describe('decision records (docs/decisions/)', () => {
  const dir = resolve(root, 'docs/decisions');
  const records = readdirSync(dir)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f))
    .sort();
  const index = readFileSync(resolve(dir, 'README.md'), 'utf8');
  const read = (file: string) => readFileSync(resolve(dir, file), 'utf8');

  it('lists every record in the index, and only records that exist', () => {
    expect(records.length).toBeGreaterThan(30);
    expect(records.filter((f) => !index.includes(`](${f})`))).toEqual([]);
    const linked = [...index.matchAll(/\]\((\d{4}-[a-z0-9-]+\.md)\)/g)].map((m) => m[1]!);
    expect(linked.filter((f) => !records.includes(f))).toEqual([]);
  });

  it('gives every record a numbered title, a status and its Context, Decision and Consequences', () => {
    const bad = records.filter((f) => {
      const text = read(f);
      return (
        !text.startsWith(`# ${f.slice(0, 4)}. `) ||
        !/^Status: \w+/m.test(text) ||
        !['Context', 'Decision', 'Consequences'].every((h) => new RegExp(`^## ${h}\\n\\n\\S`, 'm').test(text))
      );
    });
    expect(bad).toEqual([]);
  });

  it('names only existing paths in each record\'s "Implemented in:" line', () => {
    const gone: string[] = [];
    for (const f of records) {
      const line = /^Implemented in: (.+)$/m.exec(read(f))?.[1];
      if (!line) {
        gone.push(`${f}: no "Implemented in:" line`);
        continue;
      }
      for (const m of line.matchAll(/`([^`]+)`/g)) if (!existsSync(resolve(root, m[1]!))) gone.push(`${f}: ${m[1]}`);
    }
    expect(gone).toEqual([]);
  });

  it('resolves every docs/decisions/ path mentioned in the code and the docs', () => {
    const files: string[] = [];
    const walk = (rel: string) => {
      for (const e of readdirSync(resolve(root, rel), { withFileTypes: true })) {
        if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(path);
        else if (/\.(ts|tsx|md)$/.test(e.name)) files.push(path);
      }
    };
    walk('');
    const gone: string[] = [];
    for (const file of files) {
      for (const m of readFileSync(resolve(root, file), 'utf8').matchAll(/docs\/decisions\/[\w.-]+\.md/g)) {
        if (!existsSync(resolve(root, m[0]))) gone.push(`${file}: ${m[0]}`);
      }
      // Relative links between the records and from docs/decisions.md.
      if (file.startsWith('docs/')) {
        for (const m of readFileSync(resolve(root, file), 'utf8').matchAll(/\]\(((?:decisions\/)?\d{4}-[\w-]+\.md)\)/g)) {
          if (!existsSync(resolve(root, dirname(file), m[1]!))) gone.push(`${file}: ${m[1]}`);
        }
      }
    }
    expect(gone).toEqual([]);
  });
});
