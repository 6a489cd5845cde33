/**
 * A Server-Sent Events reader for tests and benchmarks: calls `on` with each message (its `id`,
 * `event` and `data` fields) or comment (`: ...` blocks) as it arrives, until the stream ends or
 * is aborted.
 */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  /** A comment block (heartbeats, the shutdown notice), without its leading colon. */
  comment?: string;
}

export async function readEventStream(body: ReadableStream<Uint8Array> | null, on: (message: SseMessage) => void): Promise<void> {
  if (!body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (block.startsWith(':')) {
          on({ comment: block.slice(1).trim() });
          continue;
        }
        const message: SseMessage = {};
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          if (field === 'id' || field === 'event' || field === 'data') message[field] = line.slice(colon + 1).replace(/^ /, '');
        }
        on(message);
      }
    }
  } catch (e) {
    if ((e as Error).name !== 'AbortError') throw e;
  }
}
