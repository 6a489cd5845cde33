import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('createLogger', () => {
  it('never writes credentials or secrets', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) });
    const log = createLogger({ name: 't', destination: sink });
    log.info({ req: { headers: { authorization: 'Bearer live_abc', 'x-api-key': 'live_def' } }, cfg: { secret: 'whsec_x', token: 'rt_y' } }, 'hello');
    const out = lines.join('');
    expect(out).toContain('hello');
    for (const s of ['live_abc', 'live_def', 'whsec_x', 'rt_y']) expect(out).not.toContain(s);
  });
});
