/** One signed delivery to a real local receiver, verified with the stock `standardwebhooks` library. */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery, createDeliveryAgent, newSigningSecret, type SaleEventBody } from '../src/index';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const received: Received[] = [];
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(204).end();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

const event = (over: Partial<SaleEventBody['conversion']> = {}): SaleEventBody => ({
  id: 'evt_1',
  type: 'sale.approved',
  event: 'approved',
  created_at: '2026-11-23T10:00:00.000Z',
  publisher_id: 'pub_x',
  conversion: {
    id: 'cnv_1',
    status: 'approved',
    subid: 'post 17/ä',
    commission: '9.88',
    sale_amount: '123.45',
    currency: 'EUR',
    program_id: 1001,
    campaign_id: 501,
    merchant: { id: 501, name: 'Shop' },
    click_id: 'clk_a',
    occurred_at: '2026-11-22T10:00:00.000Z',
    ...over,
  },
});

const insecure = createDeliveryAgent({ allowInsecure: true, timeoutMs: 1500 });
const strict = createDeliveryAgent({ allowInsecure: false, timeoutMs: 1500 });
const headersFor = (r: Received) => ({
  'webhook-id': String(r.headers['x-cw-delivery']),
  'webhook-timestamp': String(r.headers['x-cw-timestamp']),
  'webhook-signature': String(r.headers['x-cw-signature']),
});

describe('a postback delivery', () => {
  it('POSTs the SaleEvent with the X-CW headers, verifiable with standardwebhooks, under both secrets while one rotates', async () => {
    const current = newSigningSecret();
    const previous = newSigningSecret();
    received.length = 0;
    const r = await attemptDelivery({ url: `${base}/hook?e={event}`, method: 'POST', secrets: [current, previous] }, event(), 'dlv_1', insecure, {
      allowInsecure: true,
    });
    expect(r).toMatchObject({ ok: true, status: 204 });
    const [got] = received;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hook?e=approved');
    expect(got.headers['x-cw-event']).toBe('sale.approved');
    expect(got.headers['user-agent']).toMatch(/^CW-Postbacks\//);
    expect(String(got.headers['x-cw-signature']).split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(got.body, headersFor(got))).toEqual(event());
    expect(() => new Webhook(newSigningSecret()).verify(got.body, headersFor(got))).toThrow();
    expect(() => new Webhook(current).verify(got.body.replace('9.88', '99.88'), headersFor(got))).toThrow();
  });

  it('GETs with the macros URL-encoded and the signature over the full URL', async () => {
    const secret = newSigningSecret();
    received.length = 0;
    const r = await attemptDelivery(
      {
        url: `${base}/px?s={subid}&c={commission}&cur={currency}&st={status}&id={conversion_id}&p={program_id}&m={campaign_id}&k={click_id}`,
        method: 'GET',
        secrets: [secret],
      },
      event(),
      'dlv_2',
      insecure,
      { allowInsecure: true },
    );
    expect(r.ok).toBe(true);
    const [got] = received;
    expect(got.url).toBe('/px?s=post%2017%2F%C3%A4&c=9.88&cur=EUR&st=approved&id=cnv_1&p=1001&m=501&k=clk_a');
    expect(new Webhook(secret).verify(`${base}${got.url}`, headersFor(got), { jsonParse: false })).toBeUndefined();
  });

  it('does not follow redirects, reports error statuses, gives up on a receiver that does not answer, and survives huge and endless bodies', async () => {
    const secret = newSigningSecret();
    answer = (_req, res) => res.writeHead(302, { Location: `${base}/elsewhere` }).end();
    received.length = 0;
    expect(await attemptDelivery({ url: `${base}/r`, method: 'POST', secrets: [secret] }, event(), 'dlv_3', insecure, { allowInsecure: true })).toMatchObject({
      ok: false,
      status: 302,
    });
    expect(received.map((r) => r.url)).toEqual(['/r']);
    answer = (_req, res) => res.writeHead(500).end('no');
    expect(await attemptDelivery({ url: `${base}/e`, method: 'POST', secrets: [secret] }, event(), 'dlv_4', insecure, { allowInsecure: true })).toMatchObject({
      ok: false,
      status: 500,
      error: 'HTTP 500',
    });
    answer = (_req, res) => res.writeHead(200).end('x'.repeat(5_000_000));
    expect(await attemptDelivery({ url: `${base}/big`, method: 'POST', secrets: [secret] }, event(), 'dlv_5', insecure, { allowInsecure: true })).toMatchObject(
      { ok: true, status: 200 },
    );
    answer = () => undefined; // never answers
    const t = Date.now();
    const slow = await attemptDelivery({ url: `${base}/slow`, method: 'POST', secrets: [secret] }, event(), 'dlv_6', insecure, {
      allowInsecure: true,
      timeoutMs: 1500,
    });
    expect(slow).toMatchObject({ ok: false });
    expect(slow.error).toMatch(/timed out|aborted/i);
    expect(Date.now() - t).toBeLessThan(5000);
    // Slow-loris: a status at once, then a byte every 100 ms for ever. The attempt ends by its budget.
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('.')), 100);
    };
    const t2 = Date.now();
    const loris = await attemptDelivery({ url: `${base}/loris`, method: 'POST', secrets: [secret] }, event(), 'dlv_6b', insecure, {
      allowInsecure: true,
      timeoutMs: 1500,
    });
    expect(loris).toMatchObject({ ok: true, status: 200 });
    expect(Date.now() - t2).toBeLessThan(3000);
    answer = (_req, res) => res.writeHead(204).end();
  });

  it('ends an attempt by its budget however slowly a receiver trickles its status line and headers', async () => {
    // A raw socket: the status line at once, then one header line every 100 ms, never the blank line.
    const sockets = new Set<net.Socket>();
    const trickler = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\n');
        let n = 0;
        const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(`X-Drip-${n++}: .\r\n`)), 100);
        socket.once('close', () => clearInterval(drip));
      });
    });
    await new Promise<void>((ok) => trickler.listen(0, '127.0.0.1', ok));
    try {
      const t = Date.now();
      const r = await attemptDelivery(
        { url: `http://127.0.0.1:${(trickler.address() as AddressInfo).port}/t`, method: 'POST', secrets: [newSigningSecret()] },
        event(),
        'dlv_7',
        insecure,
        { allowInsecure: true, timeoutMs: 1500 },
      );
      expect(r).toMatchObject({ ok: false, error: 'timed out after 1.5 s' });
      expect(Date.now() - t).toBeLessThan(3000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((ok) => trickler.close(ok));
    }
  });

  it('never connects to a non-public address when insecure targets are not allowed, literal or resolved', async () => {
    const secret = newSigningSecret();
    received.length = 0;
    const literal = await attemptDelivery({ url: `${base.replace('http:', 'https:')}/x`, method: 'POST', secrets: [secret] }, event(), 'dlv_7', strict, {
      allowInsecure: false,
    });
    expect(literal).toMatchObject({ ok: false, error: expect.stringMatching(/refused/) });
    const port = new URL(base).port;
    const named = await attemptDelivery({ url: `https://localhost:${port}/x`, method: 'POST', secrets: [secret] }, event(), 'dlv_8', strict, {
      allowInsecure: false,
    });
    expect(named).toMatchObject({ ok: false, error: expect.stringMatching(/non-public/) });
    expect(received).toEqual([]);
  });
});
