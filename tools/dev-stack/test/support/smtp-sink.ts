/**
 * A real SMTP server for tests (no extension beyond the basics, no TLS): it takes every message
 * and keeps its raw text, as an inbox the test reads. `listen(port)` on a chosen port lets a test
 * start the mailer against a closed port and open the server later ("the SMTP server came back").
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface SinkMessage {
  from: string;
  to: string[];
  raw: string;
  /** Header lines unfolded, by lower-case name (the first of each). */
  headers: Record<string, string>;
  /** The body, quoted-printable soft breaks and `=3D` undone. */
  body: string;
}

export interface SmtpSink {
  messages: SinkMessage[];
  listen(port?: number): Promise<number>;
  close(): Promise<void>;
  /** The messages to `to`. */
  to(address: string): SinkMessage[];
}

function parse(from: string, to: string[], raw: string): SinkMessage {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).toLowerCase()] ??= line.slice(at + 1).trim();
  }
  const qp = /quoted-printable/i.test(headers['content-transfer-encoding'] ?? '') || /quoted-printable/i.test(rest.join('\n\n').slice(0, 400));
  const text = rest.join('\n\n');
  const body = qp ? quotedPrintable(text) : text;
  return { from, to, raw, headers, body };
}

/** Quoted-printable undone (soft line breaks, `=XX` bytes), as UTF-8 text. */
function quotedPrintable(text: string): string {
  const bytes: number[] = [];
  const src = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    const hex = src[i] === '=' ? /^[0-9A-F]{2}/i.exec(src.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(src[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

export function smtpSink(): SmtpSink {
  const messages: SinkMessage[] = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const session = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    let data: string[] | null = null;
    let from = '';
    let to: string[] = [];
    socket.write('220 sink.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\r\n'); nl >= 0; nl = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (data) {
          if (line === '.') {
            messages.push(parse(from, to, data.join('\r\n')));
            data = null;
            to = [];
            socket.write('250 queued\r\n');
          } else data.push(line.startsWith('..') ? line.slice(1) : line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 sink.test\r\n');
        else if (verb === 'MAIL') {
          from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          data = [];
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
  };
  return {
    messages,
    to: (address) => messages.filter((m) => m.to.includes(address)),
    listen(port = 0) {
      server = createServer(session);
      return new Promise((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve((server!.address() as { port: number }).port));
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    },
  };
}
