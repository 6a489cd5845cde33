/**
 * Every image, `npm start` and the benches' processes run Node with the same glibc malloc thresholds
 * (docs/decisions/0051-malloc-thresholds.md), and values glibc takes: it ignores, silently, an
 * mmap threshold above 32 MiB on 64-bit machines (HEAP_MAX_SIZE / 2).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const NAMES = ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_'] as const;

/** The values these names are given in a text (`NAME=value`, or `NAME: 'value'` in TypeScript). */
function settings(text: string): Record<string, string> {
  return Object.fromEntries(NAMES.flatMap((name) => [...text.matchAll(new RegExp(`\\b${name}(?:=|: ')(\\d+)`, 'g'))].map((m) => [name, m[1]!])));
}

describe('malloc thresholds', () => {
  it('are set alike by every image (in its final stage), npm start and the benches, to values glibc takes', () => {
    const dockerfiles = readdirSync(resolve(root, 'docker')).filter((f) => f.startsWith('Dockerfile.'));
    expect(dockerfiles.length).toBeGreaterThanOrEqual(8);
    const start = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    const expected = settings(start);
    expect(Object.keys(expected).sort()).toEqual([...NAMES].sort());
    for (const file of dockerfiles) {
      const text = readFileSync(resolve(root, 'docker', file), 'utf8');
      const finalStage = text.slice(text.lastIndexOf('\nFROM '));
      expect(
        settings(
          finalStage
            .split('\n')
            .filter((l) => !l.startsWith('#'))
            .join('\n'),
        ),
        file,
      ).toEqual(expected);
    }
    // The services and engines the benches start run with the same (bench/lib/malloc-env.ts).
    expect(settings(readFileSync(resolve(root, 'bench/lib/malloc-env.ts'), 'utf8'))).toEqual(expected);
    expect(Number(expected.MALLOC_MMAP_THRESHOLD_)).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(Number(expected.MALLOC_TRIM_THRESHOLD_)).toBeGreaterThanOrEqual(Number(expected.MALLOC_MMAP_THRESHOLD_));
  });
});
