import { describe, expect, it } from 'vitest';
import { slowFirstOrder, type FileToOrder } from './slow-first-sequencer';
import { durationsOfResults } from './test-durations';

const order = (files: Record<string, FileToOrder>) => slowFirstOrder(Object.keys(files), (f) => files[f]!);
const slow = (duration?: number, size = 0): FileToOrder => ({ slow: true, duration, size });
const plain = (duration?: number, size = 0): FileToOrder => ({ slow: false, duration, size });

describe('the order npm test starts its files in', () => {
  it('puts each slow file, longest first, before ordinary files that take a little longer than it', () => {
    expect(
      order({
        S1: slow(100),
        S2: slow(300),
        a: plain(50),
        b: plain(150),
        c: plain(200),
        d: plain(40),
        e: plain(30),
        f: plain(10),
      }),
    ).toEqual(['S2', 'c', 'b', 'a', 'S1', 'd', 'e', 'f']); // S2: 400 of 360 (300 x 1.2); S1: the rest
  });

  it('counts a file it knows nothing of as the median of its kind, and breaks ties by size', () => {
    // Slow medians: 100; ordinary: 20. The unknown slow file X ranks with S (100), larger first.
    expect(order({ S: slow(100, 1), X: slow(undefined, 9), a: plain(20), b: plain(undefined, 5), c: plain(20, 7) })).toEqual(['X', 'c', 'b', 'a', 'S']);
  });

  it('without slow files, ordinary ones longest first', () => {
    expect(order({ a: plain(1), b: plain(3), c: plain(2) })).toEqual(['b', 'c', 'a']);
  });
});

describe('the measured durations table', () => {
  it("keeps each file Vitest remembers with its duration in seconds, by path without the project's name, sorted", () => {
    const table = durationsOfResults(
      {
        results: [
          [':libs/b.test.ts', { duration: 12_460.3, failed: false }],
          ['web:apps/a.test.ts', { duration: 49, failed: false }],
          [':apps/never-ran.test.ts', { failed: false }],
        ],
      },
      '2026-12-07 CI',
    );
    expect(table).toEqual({ measured: '2026-12-07 CI', seconds: { 'apps/a.test.ts': 0, 'libs/b.test.ts': 12.5 } });
    expect(Object.keys(table.seconds)).toEqual(['apps/a.test.ts', 'libs/b.test.ts']);
  });
});
