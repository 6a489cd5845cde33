import { describe, expect, it } from 'vitest';
import { createLogger } from '@cw/logging';
import type { ClickRow } from '@cw/links';
import { ClickRecorder } from './click-recorder';

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const click = (n: number) => ({ _id: `clk_${n}` }) as ClickRow;

/** A store that takes `ms` per batch and keeps what it was given. */
function slowStore(ms: number) {
  const batches: ClickRow[][] = [];
  return {
    batches,
    write: async (batch: ClickRow[]) => {
      await sleep(ms);
      batches.push(batch);
      return batch.length;
    },
  };
}

describe('ClickRecorder', () => {
  it('writes a steady stream an interval at a time, not as a trickle of what arrived during the last write', async () => {
    // One click every 2 ms for 1.2 s, a flush interval of 300 ms, a write of 40 ms: about four
    // interval batches. Writing whatever arrived during the previous write would make ~30.
    const store = slowStore(40);
    const recorder = new ClickRecorder(store.write, logger, 300);
    let n = 0;
    const until = Date.now() + 1200;
    while (Date.now() < until) {
      recorder.record(click(n++));
      await sleep(2);
    }
    await recorder.close();
    const written = store.batches.flat().map((c) => c._id);
    expect(written).toEqual(Array.from({ length: n }, (_, i) => `clk_${i}`));
    expect(store.batches.length).toBeLessThanOrEqual(8);
  });

  it('a flush asked for while another writes resolves once the clicks before it are written', async () => {
    const store = slowStore(30);
    const recorder = new ClickRecorder(store.write, logger, 60_000);
    recorder.record(click(0));
    const first = recorder.flush();
    recorder.record(click(1));
    recorder.record(click(2));
    await recorder.flush();
    expect(store.batches.flat().map((c) => c._id)).toEqual(['clk_0', 'clk_1', 'clk_2']);
    await first;
    expect(recorder.pending).toBe(0);
    await recorder.close();
  });
});
