/**
 * The API reference's SDK samples cannot drift: every operation of the publisher, reporting,
 * monetize and feeds documents carries curl, and every one the SDKs cover a TypeScript and a
 * Python sample; each TypeScript sample type-checks against the SDK's source, and each Python
 * call resolves on the Python SDK's client with the arguments it passes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/platform';
import { sdkDocuments } from '../src/sdk-types';

const run = promisify(execFile);

interface Sample {
  lang: string;
  label: string;
  source: string;
}
interface Operation {
  operationId: string;
  'x-codeSamples'?: Sample[];
}

let operations: Array<{ doc: string; method: string; path: string; op: Operation }>;

beforeAll(() => {
  operations = Object.entries(sdkDocuments()).flatMap(([doc, d]) =>
    Object.entries(d.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ doc, method: method.toUpperCase(), path, op })),
    ),
  );
});

/** Operations the SDKs deliberately leave out: postback writes (portal token only), HasOffers' API, the signed feed download's own URL. */
const CURL_ONLY = new Set(['putPostback', 'rotatePostbackSecret']);
const NO_SAMPLES = new Set(['apiv3Get', 'apiv3Post', 'getProductFeed']);

const samplesOf = (op: Operation, lang: string) => (op['x-codeSamples'] ?? []).filter((s) => s.lang === lang);

describe('SDK samples in the API reference', () => {
  it('show curl for every operation and both SDKs for every operation they cover', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const { doc, method, path, op } of operations) {
      if (NO_SAMPLES.has(op.operationId)) continue;
      const where = `${doc} ${method} ${path} (${op.operationId})`;
      const [curl] = samplesOf(op, 'Shell');
      expect(curl, where).toBeDefined();
      // The curl names the operation's own method and path.
      expect(curl!.source, where).toContain(path.split('{')[0]!);
      if (method !== 'GET') expect(curl!.source, where).toContain(`-X ${method}`);
      const sdks = samplesOf(op, 'TypeScript').length + samplesOf(op, 'Python').length;
      expect(sdks, where).toBe(CURL_ONLY.has(op.operationId) ? 0 : 2);
    }
  });

  it('type-check every TypeScript sample against the SDK', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-samples-ts-'));
    const sdk = join(REPO_ROOT, 'libs/sdk/typescript/src/index.js');
    const bodies = operations.flatMap(({ op }) =>
      samplesOf(op, 'TypeScript').map(
        (s) =>
          `// ${op.operationId}\nexport async function ${op.operationId}(accessSecret: string): Promise<void> {\n${s.source.replace(/^import .*\n\n?/m, '')}\n  void accessSecret;\n}\n`,
      ),
    );
    expect(bodies.length).toBeGreaterThan(30);
    writeFileSync(join(dir, 'samples.ts'), `import { CwClient } from ${JSON.stringify(sdk)};\n\n${bodies.join('\n')}`);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          noUnusedLocals: false,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['es2023', 'dom'],
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
          skipLibCheck: true,
        },
        files: ['samples.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const out = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')]).catch((e: { stdout: string }) => e);
    expect((out as { stdout: string }).stdout).toBe('');
  }, 120_000);

  it('resolve every Python call on the Python SDK with the arguments it passes', async () => {
    const samples = operations.flatMap(({ op }) => samplesOf(op, 'Python').map((s) => ({ id: op.operationId, source: s.source })));
    expect(samples.length).toBeGreaterThan(30);
    const checker = `
import ast, inspect, json, sys
sys.path.insert(0, ${JSON.stringify(join(REPO_ROOT, 'libs/sdk/python'))})
from cw_sdk import CwClient
def value(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None  # a variable or a call: only its place is checked
problems = []
for s in json.load(sys.stdin):
    tree = ast.parse(s["source"])
    calls = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        chain, f = [], node.func
        while isinstance(f, ast.Attribute):
            chain.insert(0, f.attr)
            f = f.value
        if not (isinstance(f, ast.Name) and f.id == "cw") or not chain:
            continue
        calls += 1
        target = CwClient(base_url="http://127.0.0.1:9", api_key="k", reporting_token="r", offers_credential="o")
        try:
            for name in chain:
                target = getattr(target, name)
            args = [value(a) for a in node.args]
            kwargs = {k.arg: value(k.value) for k in node.keywords}
            inspect.signature(target).bind(*args, **kwargs)
        except Exception as e:
            problems.append(f'{s["id"]}: cw.{".".join(chain)}: {e!r}')
    if not calls:
        problems.append(f'{s["id"]}: no call on cw')
print(json.dumps(problems))
`;
    const child = execFile('python3', ['-c', checker]);
    child.stdin!.end(JSON.stringify(samples));
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    await new Promise((ok) => child.on('exit', ok));
    expect(err).toBe('');
    expect(JSON.parse(out)).toEqual([]);
  });
});
