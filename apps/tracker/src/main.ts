import { runHttpService } from '@cw/runtime';
import { createApp, type TrackerApp } from './app';

await runHttpService({
  name: 'tracker',
  defaultPort: 8087,
  env: process.env,
  createApp,
  onShutdown: async (app) => {
    await (app as TrackerApp).clicks.close();
    await (app as TrackerApp).addresses.close();
  },
});
