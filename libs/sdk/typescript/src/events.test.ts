/** The SSE parser: fields split across chunks, CRLF, comments, multi-line data, the retry hint. */
import { describe, expect, it } from 'vitest';
import { parseSse } from './events';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

describe('parseSse', () => {
  it('reads events whatever the chunking and line endings, skipping comments', async () => {
    const hints: number[] = [];
    const got = [];
    const stream = streamOf([
      'retry: 2000\n\n: heartbeat\n\nid: evc1_a\nevent: sale.cr',
      'eated\ndata: {"a":1}\r\n\r',
      '\nid: evc1_b\ndata: line1\ndata: line2\n\n',
    ]);
    for await (const e of parseSse(
      stream,
      (ms) => hints.push(ms),
      () => undefined,
    ))
      got.push(e);
    expect(hints).toEqual([2000]);
    expect(got).toEqual([
      { id: 'evc1_a', event: 'sale.created', data: '{"a":1}' },
      { id: 'evc1_b', data: 'line1\nline2' },
    ]);
  });
});
