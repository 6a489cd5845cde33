/**
 * The listeners (TCP, and a Unix socket when asked): frame messages off each socket, run them on
 * the engine, write the replies.
 * A malformed frame (bad length, unknown opcode, truncated sections) closes that connection;
 * invalid BSON inside a well-framed OP_MSG gets an error reply. The engine itself never crashes.
 */
import net from 'node:net';
import { Engine, type EngineOptions } from './engine';
import { CODES } from './errors';
import { DataDir, loadSnapshotFile, writeSnapshotFile, type RecoveryReport } from './storage/data-dir';
import { encodeMsg, encodeReply, MAX_MESSAGE_SIZE, OP_MSG, OP_QUERY, ownReply, parseMessage, readHeader, type Reply, ReplyBuffers } from './wire';

export interface EmbeddedMongoOptions extends EngineOptions {
  port?: number;
  host?: string;
  /** Also listen on this Unix socket (a path ending in .sock, as the drivers want it). */
  socketPath?: string;
  /** Keep the data in this directory (journal + snapshots); absent: in memory only. */
  dataDir?: string;
  /** Snapshot once the journal holds this many bytes (default 64 MiB). */
  compactAfterBytes?: number;
  /** Where recovery problems are reported (default: stderr). */
  log?: (message: string) => void;
  /**
   * Start from the state in this snapshot file (written by `saveSnapshot`), in memory; with a
   * data directory, use `dataDir` alone. A damaged file is an error.
   */
  snapshot?: string;
}

export interface EmbeddedMongo {
  /** mongodb://host:port (no database: append one per test or app). */
  uri: string;
  /** With socketPath: the URI that reaches the engine over that Unix socket. */
  socketUri?: string;
  port: number;
  engine: Engine;
  /** True once stop() was called. */
  readonly stopped: boolean;
  /** With a data directory: what start-up loaded and any journal damage it skipped. */
  recovery?: RecoveryReport;
  /** With a data directory: writes a snapshot now and drops the journals it covers. */
  compact(): Promise<void>;
  /** Writes the whole state as of now to one snapshot file (`snapshot` starts an engine from it). */
  saveSnapshot(path: string): Promise<void>;
  /** Closes every connection and the listener; calling it again does nothing. */
  stop(): Promise<void>;
}

/** Sockets that have only ever said hello: the drivers' server monitors. */
const MONITOR_COMMANDS = new Set(['hello', 'ismaster', 'isMaster']);

function handleSocket(socket: net.Socket, engine: Engine, monitors: Set<net.Socket>, replies: ReplyBuffers): void {
  const connectionId = engine.newConnectionId();
  let chunks: Buffer[] = [];
  let buffered = 0;
  socket.setNoDelay(true);

  const fail = () => socket.destroy();
  // Replies leave in request order: one waiting for the journal holds back those after it.
  let waiting = 0;
  let queue: Promise<void> = Promise.resolve();
  const write = (reply: Reply) => void socket.write(reply.bytes, reply.done);
  const send = (reply: Reply, durable: Promise<void> | undefined, requestId: number) => {
    if (!durable && waiting === 0) return write(reply);
    waiting++;
    queue = queue
      .then(() => durable)
      .then(
        () => write(reply),
        (e: Error) => {
          reply.done();
          socket.write(encodeMsg(requestId, { ok: 0, errmsg: `journal write failed: ${e.message}`, code: 8, codeName: 'UnknownError' }));
        },
      )
      .then(() => void waiting--);
  };

  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (buffered >= 4) {
      if (chunks[0]!.length < 4) chunks = [Buffer.concat(chunks)];
      const length = chunks[0]!.readInt32LE(0);
      if (length < 21 || length > MAX_MESSAGE_SIZE) return fail();
      if (buffered < length) return;
      // The chunks are joined once, when the whole message is here (not again at every chunk of a large one).
      if (chunks[0]!.length < length) chunks = [Buffer.concat(chunks)];
      const buf = chunks[0]!;
      const message = buf.subarray(0, length);
      if (buf.length > length) chunks[0] = buf.subarray(length);
      else chunks.shift();
      buffered -= length;
      const header = readHeader(message);
      if (header.opCode !== OP_MSG && header.opCode !== OP_QUERY) return fail();
      let reply: Reply | undefined;
      let durable: Promise<void> | undefined;
      try {
        const parsed = parseMessage(message);
        if (!MONITOR_COMMANDS.has(Object.keys(parsed.command)[0])) monitors.delete(socket);
        const run = engine.execute(() => engine.run(parsed.command, connectionId));
        durable = run.durable;
        if (parsed.moreToCome) {
          durable?.catch(() => undefined);
          continue;
        }
        reply = parsed.legacy ? ownReply(encodeReply(header.requestId, run.result)) : replies.msg(header.requestId, run.result);
      } catch (e) {
        if (header.opCode !== OP_MSG) return fail();
        const errmsg = e instanceof Error ? e.message : String(e);
        try {
          reply = ownReply(encodeMsg(header.requestId, { ok: 0, errmsg, code: CODES.InvalidBSON, codeName: 'InvalidBSON' }));
        } catch {
          return fail();
        }
      }
      send(reply, durable, header.requestId);
    }
  });
  socket.on('error', () => socket.destroy());
}

export async function startEmbeddedMongo(opts: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const engine = new Engine(opts);
  if (opts.snapshot && opts.dataDir) throw new Error('snapshot and dataDir exclude each other');
  if (opts.snapshot && !loadSnapshotFile(engine, opts.snapshot)) throw new Error(`snapshot ${opts.snapshot} is incomplete or damaged`);
  const storage = opts.dataDir ? DataDir.open(engine, { dir: opts.dataDir, compactAfterBytes: opts.compactAfterBytes, log: opts.log }) : undefined;
  try {
    const served = await serveEngine(engine, opts);
    return {
      ...served,
      engine,
      get stopped() {
        return served.stopped;
      },
      recovery: storage?.report,
      compact: async () => storage?.dataDir.compact(),
      saveSnapshot: (path: string) => writeSnapshotFile(path, 0, engine.captureState()),
      stop: async () => {
        if (served.stopped) return;
        // Connections first: no request may reach a closed engine (its reply would never come).
        const closing = served.stop();
        engine.close();
        await closing;
        await storage?.dataDir.close();
      },
    };
  } catch (e) {
    engine.close();
    await storage?.dataDir.close();
    throw e;
  }
}

/** Serves an engine over TCP, and over a Unix socket too when asked (the engine and its storage are the caller's). */
export async function serveEngine(
  engine: Engine,
  opts: { port?: number; host?: string; socketPath?: string } = {},
): Promise<{ uri: string; socketUri?: string; port: number; readonly stopped: boolean; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const monitors = new Set<net.Socket>();
  let stopped = false;
  const replies = new ReplyBuffers();
  const onConnection = (socket: net.Socket) => {
    if (stopped) return void socket.destroy();
    sockets.add(socket);
    monitors.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      monitors.delete(socket);
    });
    handleSocket(socket, engine, monitors, replies);
  };
  const listen = (server: net.Server, at: net.ListenOptions) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, () => resolve());
    });
  const host = opts.host ?? '127.0.0.1';
  const servers = [net.createServer(onConnection)];
  await listen(servers[0], { port: opts.port ?? 0, host });
  if (opts.socketPath) {
    servers.push(net.createServer(onConnection));
    try {
      await listen(servers[1], { path: opts.socketPath });
    } catch (e) {
      servers[0].close();
      throw e;
    }
  }
  const port = (servers[0].address() as net.AddressInfo).port;
  return {
    uri: `mongodb://${host}:${port}`,
    // The driver takes a host ending in .sock as a socket path (percent-encoded).
    socketUri: opts.socketPath ? `mongodb://${encodeURIComponent(opts.socketPath)}` : undefined,
    port,
    get stopped() {
      return stopped;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      // Monitors first, the rest a moment later. The Node driver (7.8) can hang a server check for
      // good when a failed operation requests it on a monitor connection whose close it has not
      // processed yet (the write waits for a 'drain' that never comes): closing the monitors
      // first lets it see them gone and reconnect. docs/decisions/0035-embedded-engine-and-driver.md.
      for (const s of monitors) s.destroy();
      if (sockets.size > monitors.size) await new Promise((r) => setTimeout(r, 20));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
