import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
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
