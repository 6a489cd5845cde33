import { runHttpService } from '@cw/runtime';
import { createApp } from './app';
import { createWorker, type Worker } from './worker';

let worker: Worker | undefined;
await runHttpService({
  name: 'postback-worker',
  defaultPort: 8086,
  env: process.env,
  createApp: async (deps) => {
    worker = createWorker({
      db: deps.db.connection.db!,
      logger: deps.logger,
      config: deps.config,
      data: deps.data,
      slots: deps.slots,
      registry: deps.metrics.registry,
      scheduledPayoutRuns: true,
    });
    await worker.start();
    return createApp(deps);
  },
  onShutdown: async () => worker?.stop(),
  background: true,
});
