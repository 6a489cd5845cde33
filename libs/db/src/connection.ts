import mongoose, { type Connection } from 'mongoose';

export interface Database {
  connection: Connection;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a dedicated mongoose connection (no module-level default connection). connectTimeoutMS
 * also bounds the driver's heartbeat: a server check that hangs (seen when the server restarts
 * under a check) fails after 5 s and the next check reconnects, instead of after the default 30 s.
 */
export async function connectDatabase(uri: string, opts: { serverSelectionTimeoutMS?: number } = {}): Promise<Database> {
  const connection = await mongoose
    .createConnection(uri, { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000, connectTimeoutMS: 5000, autoIndex: false, autoCreate: true, bufferCommands: false })
    .asPromise();
  return {
    connection,
    ping: async () => {
      await connection.db!.command({ ping: 1 });
    },
    close: () => connection.close(),
  };
}
