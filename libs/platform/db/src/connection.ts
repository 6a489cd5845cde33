import mongoose, { type Connection } from 'mongoose';

/** The driver's connection pool, counted from its events since the connection opened. */
export interface PoolCounts {
  open: number;
  inUse: number;
  checkoutFailures: number;
}

export interface Database {
  connection: Connection;
  pool: PoolCounts;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a dedicated mongoose connection (no module-level default connection). */
export async function connectDatabase(uri: string, opts: { serverSelectionTimeoutMS?: number; monitorCommands?: boolean } = {}): Promise<Database> {
  const pending = mongoose.createConnection(uri, {
    serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
    ...(opts.monitorCommands ? { monitorCommands: true } : {}),
    autoIndex: false,
    autoCreate: true,
    bufferCommands: false,
  });
  // Listening before the first connection is made, so the counts are exact.
  const pool: PoolCounts = { open: 0, inUse: 0, checkoutFailures: 0 };
  const client = pending.getClient();
  client.on('connectionCreated', () => pool.open++);
  client.on('connectionClosed', () => pool.open--);
  client.on('connectionCheckedOut', () => pool.inUse++);
  client.on('connectionCheckedIn', () => pool.inUse--);
  client.on('connectionCheckOutFailed', () => pool.checkoutFailures++);
  const connection = await pending.asPromise();
  return {
    connection,
    pool,
    ping: async () => {
      await connection.db!.command({ ping: 1 });
    },
    close: () => connection.close(),
  };
}
