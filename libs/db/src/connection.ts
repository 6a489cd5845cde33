import mongoose, { type Connection } from 'mongoose';

export interface Database {
  connection: Connection;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a dedicated mongoose connection (no module-level default connection). */
export async function connectDatabase(uri: string, opts: { serverSelectionTimeoutMS?: number } = {}): Promise<Database> {
  const connection = await mongoose
    .createConnection(uri, { serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000, autoIndex: false, autoCreate: true, bufferCommands: false })
    .asPromise();
  return {
    connection,
    ping: async () => {
      await connection.db!.command({ ping: 1 });
    },
    close: () => connection.close(),
  };
}
