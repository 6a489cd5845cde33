import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from './http-server';

let server: ReturnType<typeof createHttpServer>;
let port: number;

beforeAll(async () => {
  server = createHttpServer(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
    },
    { headersTimeoutMs: 400, requestTimeoutMs: 800 },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Sends raw bytes (in parts, `pauseMs` apart) and returns everything the server wrote before closing. */
function raw(parts: string[], pauseMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (got += d));
    socket.on('close', () => resolve(got));
    socket.on('error', (e) => (got ? resolve(got) : reject(e)));
    socket.setTimeout(5000, () => socket.destroy());
    const send = async () => {
      for (const p of parts) {
        if (socket.destroyed) break;
        socket.write(p);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    };
    socket.on('connect', () => void send().catch(reject));
  });
}

function parsed(answer: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) as Record<string, unknown> };
}

describe('the services’ HTTP server', () => {
  it('answers 431 in the error shape for headers over 16 KiB', async () => {
    const r = parsed(await raw([`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]));
    expect(r.status).toBe(431);
    expect(r.body).toMatchObject({ code: 'headers_too_large' });
    expect(r.headers).toContain(`x-request-id: ${String(r.body.request_id).toLowerCase()}`);
  });

  it('answers 10,000 query parameters (a request line over 16 KiB) with 431 in the error shape', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&');
    const r = parsed(await raw([`GET /?${many} HTTP/1.1\r\nHost: x\r\n\r\n`]));
    expect(r.status).toBe(431);
    expect(r.body).toMatchObject({ code: 'headers_too_large' });
  });

  it('refuses request smuggling shapes (Content-Length with Transfer-Encoding) with 400 malformed_request', async () => {
    const r = parsed(await raw([`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`]));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'malformed_request' });
  });

  it('closes a connection whose headers trickle in slower than the headers timeout, with 408', async () => {
    const started = Date.now();
    const answer = await raw(['GET / HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n', 'X-D: 4\r\n'], 300);
    expect(parsed(answer)).toMatchObject({ status: 408, body: { code: 'request_timeout' } });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
