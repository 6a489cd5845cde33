/**
 * The TCP listener: frames messages off each socket, runs them on the engine, writes replies.
 * A malformed frame (bad length, unknown opcode, truncated sections) closes that connection;
 * invalid BSON inside a well-framed OP_MSG gets an error reply. The engine itself never crashes.
 */
import net from 'node:net';
import { Engine, type EngineOptions } from './engine';
import { CODES } from './errors';
import { encodeMsg, encodeReply, MAX_MESSAGE_SIZE, OP_MSG, OP_QUERY, parseMessage, readHeader } from './wire';

export interface EmbeddedMongoOptions extends EngineOptions {
  port?: number;
  host?: string;
}

export interface EmbeddedMongo {
  /** mongodb://host:port (no database: append one per test or app). */
  uri: string;
  port: number;
  engine: Engine;
  /** True once stop() was called. */
  readonly stopped: boolean;
  /** Closes every connection and the listener; calling it again does nothing. */
  stop(): Promise<void>;
}

function handleSocket(socket: net.Socket, engine: Engine): void {
  const connectionId = engine.newConnectionId();
  let chunks: Buffer[] = [];
  let buffered = 0;
  socket.setNoDelay(true);

  const fail = () => socket.destroy();

  socket.on('data', (chunk) => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (buffered >= 4) {
      if (chunks.length > 1) chunks = [Buffer.concat(chunks)];
      const buf = chunks[0];
      const length = buf.readInt32LE(0);
      if (length < 21 || length > MAX_MESSAGE_SIZE) return fail();
      if (buffered < length) return;
      const message = buf.subarray(0, length);
      const rest = buf.subarray(length);
      chunks = rest.length ? [rest] : [];
      buffered = rest.length;
      const header = readHeader(message);
      if (header.opCode !== OP_MSG && header.opCode !== OP_QUERY) return fail();
      let reply: Buffer | undefined;
      try {
        const parsed = parseMessage(message);
        const result = engine.run(parsed.command, connectionId);
        if (parsed.moreToCome) continue;
        reply = parsed.legacy ? encodeReply(header.requestId, result) : encodeMsg(header.requestId, result);
      } catch (e) {
        if (header.opCode !== OP_MSG) return fail();
        const errmsg = e instanceof Error ? e.message : String(e);
        try {
          reply = encodeMsg(header.requestId, { ok: 0, errmsg, code: CODES.InvalidBSON, codeName: 'InvalidBSON' });
        } catch {
          return fail();
        }
      }
      socket.write(reply);
    }
  });
  socket.on('error', () => socket.destroy());
}

export async function startEmbeddedMongo(opts: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const engine = new Engine(opts);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    handleSocket(socket, engine);
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  let stopped = false;
  return {
    uri: `mongodb://${host}:${port}`,
    port,
    engine,
    get stopped() {
      return stopped;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      engine.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
