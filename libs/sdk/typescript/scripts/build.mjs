// Builds dist/esm (ESM, the CLI included) and dist/cjs (CommonJS) with their type declarations.
// `npm pack` runs it (prepack). Only typescript is needed (a devDependency).
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit', cwd: root });
}
// Node reads dist/cjs/*.js as CommonJS (the package itself is "type": "module").
writeFileSync(join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
const bin = join(root, 'dist/esm/cli/main.js');
if (existsSync(bin)) chmodSync(bin, 0o755);
